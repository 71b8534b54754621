import HTTPServer
import Synchronization

/// Records the path of every request it is handed, so that a test can prove a smuggled request never ran.
final class RecordingHandler: HTTPHandler {
    private let paths = Mutex<[String]>([])

    var handled: [String] { paths.withLock { $0 } }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        paths.withLock { $0.append(request.path) }
        return .json(status: 200, Array(#"{"ok":true}"#.utf8))
    }
}
