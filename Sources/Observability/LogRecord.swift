/// One log line before it is written: what happened (`event`, a short stable name such as `request`, `reload`,
/// `webhook`), a message for people, and the request's fields when it is about one. Never a token, key, challenge,
/// credential ID or personal data in any field: messages name routes by their pattern and failures by their code.
public struct LogRecord: Sendable {
    public var level: LogLevel
    public var event: String
    public var message: String
    /// The request's ID (`X-Request-Id`), its route pattern, status, duration and error code, for request lines.
    public var requestID: String?
    public var route: String?
    public var status: Int?
    public var durationMilliseconds: Double?
    public var code: String?

    public init(
        level: LogLevel,
        event: String,
        message: String,
        requestID: String? = nil,
        route: String? = nil,
        status: Int? = nil,
        durationMilliseconds: Double? = nil,
        code: String? = nil
    ) {
        self.level = level
        self.event = event
        self.message = message
        self.requestID = requestID
        self.route = route
        self.status = status
        self.durationMilliseconds = durationMilliseconds
        self.code = code
    }
}
