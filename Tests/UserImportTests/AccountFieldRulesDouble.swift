import JSON
import UserImport

/// Account rules for the readers' tests: every value as given, but `refused` (and, for email, one without "@").
struct AccountFieldRulesDouble: AccountFieldRules {
    var refused: Set<String> = []

    func name(_ value: String) -> String? { refused.contains(value) ? nil : value }
    func email(_ value: String) -> String? { refused.contains(value) || !(value.isEmpty || value.contains("@")) ? nil : value }
    func externalID(_ value: String) -> String? { refused.contains(value) ? nil : value }
    func metadata(_ value: JSONValue) -> String?? {
        guard case .object(let members) = value else { return nil }
        return .some(members.isEmpty ? nil : "{}")
    }
}
