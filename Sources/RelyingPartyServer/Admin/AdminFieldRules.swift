import JSON
import UserImport

/// The admin API's rules for an account's fields (`RelyingPartyServer.validName`, `AdminService.validEmail`,
/// `validExternalID`, `UserMetadata`), which an import's lines meet too.
struct AdminFieldRules: AccountFieldRules {
    func name(_ value: String) -> String? {
        try? RelyingPartyServer.validName(value, member: "name")
    }

    func email(_ value: String) -> String? {
        try? AdminService.validEmail(value)
    }

    func externalID(_ value: String) -> String? {
        try? AdminService.validExternalID(value)
    }

    func metadata(_ value: JSONValue) -> String?? {
        do {
            return .some(try UserMetadata.text(of: value))
        } catch {
            return nil
        }
    }
}
