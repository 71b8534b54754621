import Foundation
import HTTPServer

extension HTTPRequest {
    /// The percent-decoded value of `name` in the query string (the first pair named so), or nil.
    func queryValue(_ name: String) -> String? {
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2, parts[0] == name { return String(parts[1]).removingPercentEncoding }
        }
        return nil
    }
}
