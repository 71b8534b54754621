/// What one call to Apple's endpoints gave back.
public struct AppleReply: Sendable, Equatable {
    /// The HTTP status, or nil when Apple could not be reached (connection failure, timeout).
    public var status: Int?
    public var body: [UInt8]
    /// `max-age` of the `Cache-Control` header, in seconds, if any.
    public var maximumAge: Int?

    public init(status: Int?, body: [UInt8] = [], maximumAge: Int? = nil) {
        self.status = status
        self.body = body
        self.maximumAge = maximumAge
    }

    /// No answer at all.
    public static let unreachable = AppleReply(status: nil)
}
