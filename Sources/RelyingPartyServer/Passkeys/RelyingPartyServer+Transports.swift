extension RelyingPartyServer {
    /// The transports WebAuthn L3 defines (§5.8.4 AuthenticatorTransport), each once, in the order given, at most 8:
    /// what a client reports is stored and shown, so nothing else is kept (3,003 entries and HTML were accepted).
    static func knownTransports(_ transports: [String]) -> [String] {
        var kept: [String] = []
        for transport in transports where Self.transportValues.contains(transport) && !kept.contains(transport) && kept.count < 8 {
            kept.append(transport)
        }
        return kept
    }

    static let transportValues: Set<String> = ["usb", "nfc", "ble", "smart-card", "hybrid", "internal"]
}
