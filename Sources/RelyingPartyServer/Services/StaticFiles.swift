import Foundation
import HTTPServer

/// Serves the demo site from a folder: regular files only, no traversal out of the folder, no listings.
struct StaticFiles: Sendable {
    let root: String

    private static let types = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
        "svg": "image/svg+xml", "png": "image/png", "ico": "image/x-icon", "json": "application/json", "txt": "text/plain; charset=utf-8",
    ]

    func response(for path: String) -> HTTPResponse? {
        let relative = path == "/" ? "index.html" : String(path.dropFirst())
        let segments = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard !segments.isEmpty, segments.allSatisfy({ !$0.isEmpty && !$0.hasPrefix(".") }), !relative.contains("\\") else { return nil }
        let fullPath = root + "/" + relative
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: fullPath, isDirectory: &isDirectory), !isDirectory.boolValue,
            let data = FileManager.default.contents(atPath: fullPath)
        else { return nil }
        let type = Self.types[(relative as NSString).pathExtension.lowercased()] ?? "application/octet-stream"
        return HTTPResponse(
            status: 200,
            headers: HTTPHeaders([
                ("Content-Type", type), ("Cache-Control", "no-cache"), ("X-Content-Type-Options", "nosniff"),
                ("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'"), ("Referrer-Policy", "same-origin"),
            ]),
            body: Array(data)
        )
    }
}
