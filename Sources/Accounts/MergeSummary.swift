import Foundation

/// One account of a `merge_conflict`: what a person needs to choose, and nothing that identifies it.
package struct MergeSummary: Encodable {
    package let createdAt: Date
    package let lastSignInAt: Date?
    package let passkeys: Int
    package let appleLinked: Bool

    package init(createdAt: Date, lastSignInAt: Date?, passkeys: Int, appleLinked: Bool) {
        self.createdAt = createdAt
        self.lastSignInAt = lastSignInAt
        self.passkeys = passkeys
        self.appleLinked = appleLinked
    }
}
