import Foundation
import HTTPFields
import HTTPServer

#if canImport(Glibc)
import Glibc
#endif

/// Serves the demo site from a folder: regular files only, no traversal out of the folder, no listings.
///
/// A path is resolved with `realpath` and served only when the result lies under the resolved root, so a symbolic
/// link inside the folder is followed when it points inside it and never when it points out. The file is then opened
/// from the root one component at a time with `O_NOFOLLOW`, so a link swapped in between the check and the open is
/// not followed either, and no file outside the root is ever opened.
struct StaticFiles: Sendable {
    let root: String

    private static let types = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
        "svg": "image/svg+xml", "png": "image/png", "ico": "image/x-icon", "json": "application/json", "txt": "text/plain; charset=utf-8",
    ]

    /// The largest file served (the demo site's files are a few kilobytes).
    private static let maximumFileSize = 16 << 20

    /// The file of `path`: `/` is `index.html`, and a path without an extension that names no file is its `.html` page
    /// (`/enroll` is `enroll.html`, the page of enrollment links).
    func response(for path: String) -> HTTPResponse? {
        let relative = path == "/" ? "index.html" : String(path.dropFirst())
        if let response = file(relative) { return response }
        // Only the last segment is looked at (Foundation's `pathExtension` traps on some invalid paths); `file`
        // validates the whole path before it touches the disk.
        guard let last = relative.split(separator: "/", omittingEmptySubsequences: false).last, !last.isEmpty, !last.contains(".") else {
            return nil
        }
        return file(relative + ".html")
    }

    private func file(_ relative: String) -> HTTPResponse? {
        let segments = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard !segments.isEmpty, segments.allSatisfy({ !$0.isEmpty && !$0.hasPrefix(".") }), !relative.contains("\\"),
            !relative.utf8.contains(0), let body = Self.contents(of: relative, under: root)
        else { return nil }
        let type = Self.types[(relative as NSString).pathExtension.lowercased()] ?? "application/octet-stream"
        return HTTPResponse(
            status: 200,
            headers: HTTPHeaders([
                ("Content-Type", type), ("Cache-Control", "no-cache"), ("X-Content-Type-Options", "nosniff"),
                ("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'"), ("Referrer-Policy", "same-origin"),
            ]),
            body: body
        )
    }

    /// The bytes of the regular file `relative` names under `root`, or nil when it resolves outside the root, is not a
    /// regular file, or cannot be read.
    private static func contents(of relative: String, under root: String) -> [UInt8]? {
        guard let resolvedRoot = resolved(root), let resolvedFile = resolved(root + "/" + relative) else { return nil }
        let prefix = resolvedRoot.hasSuffix("/") ? resolvedRoot : resolvedRoot + "/"
        guard resolvedFile.hasPrefix(prefix) else { return nil }
        let components = resolvedFile.dropFirst(prefix.count).split(separator: "/").map(String.init)
        var directory = open(resolvedRoot, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { return nil }
        for component in components.dropLast() {
            let next = openat(directory, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            close(directory)
            guard next >= 0 else { return nil }
            directory = next
        }
        // O_NONBLOCK: a FIFO must not block the event loop in open; it is refused as not a regular file below.
        let file = components.last.map { openat(directory, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) } ?? -1
        close(directory)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var status = stat()
        guard fstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG, Int(status.st_size) <= maximumFileSize else { return nil }
        return read(file)
    }

    /// `path` with every link, `.` and `..` resolved, or nil when it does not exist.
    private static func resolved(_ path: String) -> String? {
        guard let result = realpath(path, nil) else { return nil }
        defer { free(result) }
        return String(cString: result)
    }

    /// Reads the whole file, or nil past the size limit (it may have grown since `fstat`).
    private static func read(_ file: Int32) -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count <= maximumFileSize {
            let count = Glibc.read(file, &chunk, chunk.count)
            if count == 0 { return bytes }
            guard count > 0 else { return nil }
            bytes += chunk[0..<count]
        }
        return nil
    }
}
