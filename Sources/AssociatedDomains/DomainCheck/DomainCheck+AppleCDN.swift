import Foundation
import JSON
import OutboundHTTP

extension DomainCheck {
    /// Apple's devices read apple-app-site-association from Apple's CDN, which re-fetches it on its own schedule: a
    /// copy that differs from the live file is what devices see until then.
    func compareWithAppleCDN(_ live: Fetched?, using client: HTTPClient, into report: inout DomainCheckReport) {
        let name = "Apple CDN copy"
        let developerMode =
            "while developing, add ?mode=developer to the entitlement (webcredentials:\(host)?mode=developer) and turn on "
            + "Associated Domains Development on the device, which then fetches from the domain directly"
        let reply: HTTPClientReply
        switch get(cdnURL, using: client) {
        case .failure(let error):
            report.record(name, .error, "\(cdnURL) could not be fetched: \(error.reason)")
            return
        case .success(let answer):
            reply = answer
        }
        if reply.status == 404 {
            guard live != nil else {
                report.record(name, .skip, "Apple's CDN has no copy either")
                return
            }
            report.record(
                name,
                .fail,
                "Apple's CDN has no copy yet (\(cdnURL) answers 404): it fetches a new file within about a day, and never one it cannot read "
                    + "(a redirect, a certificate, the type); \(developerMode)"
            )
            return
        }
        guard reply.status == 200, let copy = try? JSONDecoder().decode(JSONValue.self, from: Data(reply.body)) else {
            report.record(name, .error, "\(cdnURL) answers \(reply.status) without a JSON copy")
            return
        }
        guard let live else {
            report.record(
                name,
                .warn,
                "Apple's CDN still serves a copy of an earlier file: devices work until it refreshes and reads the broken one above"
            )
            return
        }
        guard copy != live.json else {
            report.record(name, .pass, "Apple's CDN serves the same file")
            return
        }
        report.record(
            name,
            .fail,
            "Apple's CDN serves an older copy (\(Self.differences(copy, live.json))): devices see it until the CDN refreshes (about a day "
                + "after a change); \(developerMode)"
        )
    }

    /// Which services differ, with the app lists where they are short.
    static func differences(_ copy: JSONValue, _ live: JSONValue) -> String {
        let copyMembers = copy.objectValue ?? [:]
        let liveMembers = live.objectValue ?? [:]
        return Set(copyMembers.keys).union(liveMembers.keys).sorted().compactMap { service in
            guard copyMembers[service] != liveMembers[service] else { return nil }
            let apps = { (value: JSONValue?) in value?.objectValue?["apps"]?.arrayValue?.compactMap(\.stringValue).joined(separator: ", ") }
            if let cdnApps = apps(copyMembers[service]), let liveApps = apps(liveMembers[service]) {
                return "\(service).apps: CDN [\(cdnApps)], domain [\(liveApps)]"
            }
            if copyMembers[service] == nil { return "\(service) only on the domain" }
            if liveMembers[service] == nil { return "\(service) only in the CDN's copy" }
            return "\(service) differs"
        }.joined(separator: "; ")
    }
}
