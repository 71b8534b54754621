/// A person's refusal of a link suggestion: the two accounts that matched by verified email and must not be suggested
/// again. The pair is unordered: `first` precedes `second` byte-wise (`init` orders them). Deleted with either account.
public struct LinkDecline: Sendable, Hashable {
    public let first: [UInt8]
    public let second: [UInt8]

    /// The pair of `userID` and `otherUserID`, in either order.
    public init(_ userID: [UInt8], _ otherUserID: [UInt8]) {
        (first, second) = userID.lexicographicallyPrecedes(otherUserID) ? (userID, otherUserID) : (otherUserID, userID)
    }
}
