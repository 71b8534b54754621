/// passkeyd's version, printed by `passkeyd version` and `passkeyd --version`; defined here only.
enum Version {
    static let number = "0.1.0"
}
