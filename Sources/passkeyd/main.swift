print("passkeyd")
