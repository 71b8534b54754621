import Foundation

/// One account of a `merge_conflict`: what a person needs to choose, and nothing that identifies it.
struct MergeSummary: Encodable {
    let createdAt: Date
    let lastSignInAt: Date?
    let passkeys: Int
    let appleLinked: Bool
}
