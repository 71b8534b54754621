import UserImport

extension ServerError {
    /// The client's answer to an import's refusal (`UserImportError`): `import_invalid`, `unknown_member`, or what the
    /// admin API answers for the same refused field (`invalid_username`, `invalid_request`), with its member and the
    /// `line` it is on; the reason goes to the log only.
    public init(importing error: UserImportError) {
        let code: Code =
            switch error.code {
            case .unknownMember: .unknownMember
            case .usernameRefused: .invalidUsername
            case .valueRefused: .invalidRequest
            default: .importInvalid
            }
        self.init(code, member: error.member, detail: error.reason)
        if let line = error.line { self = onLine(line) }
    }

    /// What `read` reads, or its refusal as the client's answer.
    public static func importing<Value>(_ read: () throws(UserImportError) -> Value) throws(ServerError) -> Value {
        do {
            return try read()
        } catch {
            throw ServerError(importing: error)
        }
    }

    /// The import line (or user) the error is about, when it is about one.
    public var line: Int? { members["line"]?.integerValue }

    /// The error with the import line it is about (`line` in the body).
    package func onLine(_ number: Int) -> ServerError {
        var error = self
        error.members["line"] = .number(Double(number))
        return error
    }
}
