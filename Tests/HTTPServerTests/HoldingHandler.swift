import Foundation
import HTTPServer

/// `EchoHandler`, but `/hold` is held a second first: a request that arrived whole and is being answered.
struct HoldingHandler: HTTPHandler {
    func handle(_ request: HTTPRequest) -> HTTPResponse {
        if request.path == "/hold" { Thread.sleep(forTimeInterval: 1) }
        return EchoHandler().handle(request)
    }
}
