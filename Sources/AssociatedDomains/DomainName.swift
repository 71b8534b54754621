/// A domain name as the configuration writes one (`relyingParty.id`, a related origin's host): letters, digits, `-`
/// and `.`, in lower case, neither starting nor ending with a dot, at most 253 characters.
public enum DomainName {
    public static func isValid(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 253 && !text.hasPrefix(".") && !text.hasSuffix(".")
            && text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." } && text == text.lowercased()
    }
}
