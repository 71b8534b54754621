import ConfigurationFile
import Foundation
import Testing

@testable import RelyingPartyServer

/// Every configuration key `ServerConfiguration(json:)` takes is documented with its default, and every documented key
/// is one it takes. The keys are read from the code: a configuration with an unknown member at a path is refused with
/// the keys known there (`known: a, b, c`), so the test walks the whole tree of objects and lists of objects. A key is
/// documented by its own row, or by the row of an object or list it belongs to when no row names a member of it.
struct ConfigurationReferenceTests {
    /// The tables of keys: the page, the heading the table follows, the key prefix of its rows.
    static let tables: [(page: String, heading: String?, prefix: String)] = [
        ("reference/configuration.md", "# Configuration keys", ""),
        ("reference/configuration.md", "## `apple`", "apple."),
        ("reference/configuration.md", "## `webhooks`", "webhooks[]."),
        ("guides/identity-providers.md", "## Google", "identityProviders.google."),
        ("guides/identity-providers.md", "## Any OpenID Connect issuer", "identityProviders.oidc."),
        ("guides/identity-providers.md", "## Your previous auth system as a bridge", "identityProviders.firebase."),
    ]

    static let probe = "zzzProbe"

    /// The documented keys, each with the page that documents it and its default cell.
    static func documentedKeys() throws -> [String: (page: String, defaultValue: String)] {
        var keys: [String: (page: String, defaultValue: String)] = [:]
        for table in tables {
            let page = try DocumentationPage(table.page)
            let rows = page.tables(header: "| key | default | meaning |", after: table.heading)
            #expect(!rows.isEmpty, "\(page.name) has no `| key | default | meaning |` table after \(table.heading ?? "its top")")
            for cells in rows {
                for key in DocumentationPage.codeSpans(cells[0]) {
                    #expect(keys[table.prefix + key] == nil, "\(page.name): \(key) has two rows")
                    keys[table.prefix + key] = (page.name, cells[1])
                }
            }
        }
        return keys
    }

    enum Step: Equatable {
        case member(String)
        case item
    }

    static func render(_ path: [Step], concrete: Bool) -> String {
        var text = ""
        for step in path {
            switch step {
            case .member(let name): text += (text.isEmpty ? "" : ".") + name
            case .item: text += concrete ? "[0]" : "[]"
            }
        }
        return text
    }

    static func nest(_ path: [Step], _ leaf: Any) -> Any {
        guard let first = path.first else { return leaf }
        let inner = nest(Array(path.dropFirst()), leaf)
        return switch first {
        case .member(let name): [name: inner]
        case .item: [inner]
        }
    }

    /// The keys known at `path` (with `value` as the object there), or nil when what is there is not an object.
    static func known(_ path: [Step], _ value: [String: Any] = [probe: 1], provider: String? = nil) -> [String]? {
        guard let data = try? JSONSerialization.data(withJSONObject: nest(path, value)) else { return nil }
        let expected = [render(path, concrete: true), provider, probe].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ".")
        do {
            _ = try ServerConfiguration(json: data)
            return nil
        } catch {
            guard error.code == .unknownKey, error.key == expected, let start = error.reason.range(of: "(known: ") else { return nil }
            return error.reason[start.upperBound...].dropLast().components(separatedBy: ", ")
        }
    }

    /// Every key path of the configuration (`limits.maximumBodySize`, `webhooks[].url`), objects and lists included.
    static func codeKeys(_ path: [Step] = []) -> (all: Set<String>, leaves: Set<String>) {
        if path == [.member("identityProviders")] {
            var leaves: Set<String> = []
            for type in ["google", "oidc", "firebase"] {
                for key in known(path, ["p": ["type": type, probe: 1]], provider: "p") ?? [] { leaves.insert("identityProviders.\(type).\(key)") }
            }
            return (leaves.union(["identityProviders"]), leaves)
        }
        var members = known(path).map { names in names.map { path + [.member($0)] } }
        if members == nil, !path.isEmpty { members = known(path + [.item]).map { names in names.map { path + [.item, .member($0)] } } }
        guard let members, path.count < 8 else { return ([render(path, concrete: false)], [render(path, concrete: false)]) }
        var all: Set<String> = path.isEmpty ? [] : [render(path, concrete: false)]
        var leaves: Set<String> = []
        for member in members {
            let below = codeKeys(member)
            all.formUnion(below.all)
            leaves.formUnion(below.leaves)
        }
        return (all, leaves)
    }

    @Test func everyDocumentedKeyExistsAndHasADefault() throws {
        let documented = try Self.documentedKeys()
        let code = Self.codeKeys()
        #expect(code.leaves.contains("limits.maximumBodySize"), "the walk found \(code.leaves.sorted())")
        for (key, row) in documented.sorted(by: { $0.key < $1.key }) {
            #expect(code.all.contains(key), "\(row.page) documents \(key), which ServerConfiguration does not take")
            #expect(!row.defaultValue.isEmpty, "\(row.page): \(key) has no default")
        }
    }

    @Test func everyKeyOfTheCodeIsDocumented() throws {
        let documented = try Self.documentedKeys()
        for leaf in Self.codeKeys().leaves.sorted() {
            var covered = documented[leaf] != nil
            var ancestor = leaf
            while !covered, let cut = ancestor.lastIndex(where: { $0 == "." || $0 == "[" }) {
                ancestor = String(ancestor[..<cut])
                let membersNamed = documented.keys.contains { $0.hasPrefix(ancestor + ".") || $0.hasPrefix(ancestor + "[].") }
                covered = documented[ancestor] != nil && !membersNamed
                if membersNamed { break }
            }
            #expect(covered, "the configuration key \(leaf) is not documented: add a row to docs/reference/configuration.md")
        }
    }
}
