import ConfigurationFile
import ConfigurationReading
import Foundation
import TestSupport
import Testing

@testable import AssociatedDomains
@testable import RelyingPartyServer

/// The `associatedDomains` block at start-up: every refusal names its key, fingerprints in every accepted form are
/// published one way, the Android apps' origins are derived, related origins are accepted, and an explicit origin
/// that contradicts the block stops the start-up.
struct AssociatedDomainsConfigurationTests {
    /// 32 bytes 0x00…0x1F, as Google writes them, and their origin.
    static let fingerprint = DomainCheckFixture.fingerprint
    static let origin = DomainCheckFixture.origin
    static let otherFingerprint = DomainCheckFixture.otherFingerprint
    static let app = #"{"package": "com.example.app", "sha256CertFingerprints": ["\#(fingerprint)"]}"#

    private static func load(_ block: String, relyingParty: String? = nil) throws -> ServerConfiguration {
        let relyingPartyMember = relyingParty.map { #""relyingParty": \#($0), "# } ?? ""
        return try ServerConfiguration.load(json: Data(#"{\#(relyingPartyMember)"associatedDomains": \#(block)}"#.utf8))
    }

    static let refused: [(block: String, key: String)] = [
        // Android: package names, fingerprints, relations, the list.
        (#"{"android": [{"package": "a", "sha256CertFingerprints": ["\#(fingerprint)"]}]}"#, "associatedDomains.android[0].package"),
        (#"{"android": [{"package": "com.example.my-app", "sha256CertFingerprints": ["\#(fingerprint)"]}]}"#, "associatedDomains.android[0].package"),
        (#"{"android": [{"package": "com.1example", "sha256CertFingerprints": ["\#(fingerprint)"]}]}"#, "associatedDomains.android[0].package"),
        (#"{"android": [{"package": "com..example", "sha256CertFingerprints": ["\#(fingerprint)"]}]}"#, "associatedDomains.android[0].package"),
        (#"{"android": [{"package": "com.example.", "sha256CertFingerprints": ["\#(fingerprint)"]}]}"#, "associatedDomains.android[0].package"),
        (#"{"android": [{"package": "com.exämple", "sha256CertFingerprints": ["\#(fingerprint)"]}]}"#, "associatedDomains.android[0].package"),
        (#"{"android": [{"package": "com.example.app", "sha256CertFingerprints": []}]}"#, "associatedDomains.android[0].sha256CertFingerprints"),
        (#"{"android": [{"package": "com.example.app"}]}"#, "associatedDomains.android[0].sha256CertFingerprints"),
        (
            #"{"android": [{"package": "com.example.app", "sha256CertFingerprints": ["\#(fingerprint.dropLast(3))"]}]}"#,
            "associatedDomains.android[0].sha256CertFingerprints"
        ),
        (
            #"{"android": [{"package": "com.example.app", "sha256CertFingerprints": ["\#(fingerprint):20"]}]}"#,
            "associatedDomains.android[0].sha256CertFingerprints"
        ),
        (
            #"{"android": [{"package": "com.example.app", "sha256CertFingerprints": ["\#(fingerprint.replacingOccurrences(of: "00:01:", with: "0001:"))"]}]}"#,
            "associatedDomains.android[0].sha256CertFingerprints"
        ),
        (
            #"{"android": [{"package": "com.example.app", "sha256CertFingerprints": ["\#(fingerprint)", "\#(fingerprint.lowercased().replacingOccurrences(of: ":", with: ""))"]}]}"#,
            "associatedDomains.android[0].sha256CertFingerprints"
        ),
        (
            #"{"android": [{"package": "com.example.app", "sha256CertFingerprints": ["\#(fingerprint)"], "relations": []}]}"#,
            "associatedDomains.android[0].relations"
        ),
        (
            #"{"android": [{"package": "com.example.app", "sha256CertFingerprints": ["\#(fingerprint)"], "relations": ["handle_all_urls"]}]}"#,
            "associatedDomains.android[0].relations"
        ),
        (
            #"{"android": [{"package": "com.example.app", "sha256CertFingerprints": ["\#(fingerprint)"], "relations": ["delegate_permission/common.get_login_creds", "delegate_permission/common.get_login_creds"]}]}"#,
            "associatedDomains.android[0].relations"
        ),
        (#"{"android": [\#(app), \#(app)]}"#, "associatedDomains.android[1].package"),
        (#"{"android": \#(app)}"#, "associatedDomains.android"),
        (#"{"android": ["com.example.app"]}"#, "associatedDomains.android[0]"),
        (
            #"{"android": [{"package": "com.example.app", "sha256CertFingerprints": ["\#(fingerprint)"], "fingerprints": []}]}"#,
            "associatedDomains.android[0].fingerprints"
        ),
        // Apple: app IDs, applinks in both schemas, appclips.
        (#"{"webcredentials": {"apps": ["com.example.app"]}}"#, "associatedDomains.webcredentials.apps"),
        (#"{"webcredentials": {"apps": []}}"#, "associatedDomains.webcredentials.apps"),
        (#"{"webcredentials": {}}"#, "associatedDomains.webcredentials.apps"),
        (#"{"webcredentials": {"apps": ["ABCDE12345.com.example app"]}}"#, "associatedDomains.webcredentials.apps"),
        (#"{"webcredentials": {"apps": ["ABCDE12345.com.example..app"]}}"#, "associatedDomains.webcredentials.apps"),
        (#"{"webcredentials": {"apps": ["ABCDE12345.com.example.app", "ABCDE12345.com.example.app"]}}"#, "associatedDomains.webcredentials.apps"),
        (#"{"applinks": "ABCDE12345.com.example.app"}"#, "associatedDomains.applinks"),
        (#"{"applinks": 42}"#, "associatedDomains.applinks"),
        (#"{"applinks": {}}"#, "associatedDomains.applinks.details"),
        (#"{"applinks": {"details": []}}"#, "associatedDomains.applinks.details"),
        (
            #"{"applinks": {"details": [{"appIDs": ["com.example.app"], "components": [{"/": "/a"}]}]}}"#,
            "associatedDomains.applinks.details[0].appIDs"
        ),
        (#"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"]}]}}"#, "associatedDomains.applinks.details[0].components"),
        (#"{"applinks": {"details": [{"components": [{"/": "/a"}]}]}}"#, "associatedDomains.applinks.details[0].appIDs"),
        (#"{"applinks": {"details": [{"appIDs": ["ABCDE12345.a.b"], "components": []}]}}"#, "associatedDomains.applinks.details[0].components"),
        (
            #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.a.b"], "components": [{"/": 42}]}]}}"#,
            "associatedDomains.applinks.details[0].components[0]./"
        ),
        (
            #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.a.b"], "components": [{"/": "open/*"}]}]}}"#,
            "associatedDomains.applinks.details[0].components[0]./"
        ),
        (
            #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.a.b"], "components": [{"exclude": true}]}]}}"#,
            "associatedDomains.applinks.details[0].components[0]"
        ),
        (
            #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.a.b"], "components": [{"/": "/a", "exclude": "yes"}]}]}}"#,
            "associatedDomains.applinks.details[0].components[0].exclude"
        ),
        (
            #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.a.b"], "components": [{"/": "/a", "exlcude": true}]}]}}"#,
            "associatedDomains.applinks.details[0].components[0].exlcude"
        ),
        (
            #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.a.b"], "components": [{"?": 5}]}]}}"#,
            "associatedDomains.applinks.details[0].components[0].?"
        ),
        (
            #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.a.b"], "components": [{"?": {"id": 5}}]}]}}"#,
            "associatedDomains.applinks.details[0].components[0].?.id"
        ),
        (
            ##"{"applinks": {"details": [{"appIDs": ["ABCDE12345.a.b"], "components": [{"#": ""}]}]}}"##,
            "associatedDomains.applinks.details[0].components[0].#"
        ),
        (
            #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.a.b"], "components": [{"/": "/a", "comment": 1}]}]}}"#,
            "associatedDomains.applinks.details[0].components[0].comment"
        ),
        (#"{"applinks": {"details": ["ABCDE12345.a.b"]}}"#, "associatedDomains.applinks.details[0]"),
        (#"{"applinks": {"apps": [], "details": [{"appID": "ABCDE12345.a.b", "paths": []}]}}"#, "associatedDomains.applinks.details[0].paths"),
        (#"{"applinks": {"apps": [], "details": [{"appID": "ABCDE12345.a.b"}]}}"#, "associatedDomains.applinks.details[0].paths"),
        (#"{"applinks": {"apps": [], "details": [{"appID": "a.b", "paths": ["/a"]}]}}"#, "associatedDomains.applinks.details[0].appID"),
        (
            #"{"applinks": {"apps": [], "details": [{"appID": "ABCDE12345.a.b", "paths": ["open/*"]}]}}"#,
            "associatedDomains.applinks.details[0].paths"
        ),
        (#"{"applinks": {"apps": [], "details": [{"paths": ["/a"]}]}}"#, "associatedDomains.applinks.details[0].appIDs"),
        (
            #"{"applinks": {"apps": ["ABCDE12345.a.b"], "details": [{"appID": "ABCDE12345.a.b", "paths": ["/a"]}]}}"#,
            "associatedDomains.applinks.apps"
        ),
        (
            #"{"applinks": {"defaults": {"caseSensitive": "no"}, "details": [{"appIDs": ["ABCDE12345.a.b"], "components": [{"/": "/a"}]}]}}"#,
            "associatedDomains.applinks.defaults.caseSensitive"
        ),
        (
            #"{"applinks": {"substitutionVariables": {"food": []}, "details": [{"appIDs": ["ABCDE12345.a.b"], "components": [{"/": "/a"}]}]}}"#,
            "associatedDomains.applinks.substitutionVariables.food"
        ),
        (#"{"appclips": {"apps": ["nope"]}}"#, "associatedDomains.appclips.apps"),
        (#"{"appclips": {"apps": ["ABCDE12345.a.b.Clip"], "details": []}}"#, "associatedDomains.appclips.details"),
        (#"{"appclips": "ABCDE12345.a.b.Clip"}"#, "associatedDomains.appclips"),
        // Related origins.
        (#"{"relatedOrigins": ["http://example.co.uk"]}"#, "associatedDomains.relatedOrigins"),
        (#"{"relatedOrigins": ["http://localhost:8443"]}"#, "associatedDomains.relatedOrigins"),
        (#"{"relatedOrigins": ["https://example.co.uk/path"]}"#, "associatedDomains.relatedOrigins"),
        (#"{"relatedOrigins": ["https://example.co.uk/"]}"#, "associatedDomains.relatedOrigins"),
        (#"{"relatedOrigins": ["https://example.co.uk?x=1"]}"#, "associatedDomains.relatedOrigins"),
        (#"{"relatedOrigins": ["https://example.co.uk#top"]}"#, "associatedDomains.relatedOrigins"),
        (#"{"relatedOrigins": ["https://EXAMPLE.co.uk"]}"#, "associatedDomains.relatedOrigins"),
        (#"{"relatedOrigins": ["https://example.co.uk:443"]}"#, "associatedDomains.relatedOrigins"),
        (#"{"relatedOrigins": ["https://192.0.2.1"]}"#, "associatedDomains.relatedOrigins"),
        (#"{"relatedOrigins": ["https://user@example.co.uk"]}"#, "associatedDomains.relatedOrigins"),
        (#"{"relatedOrigins": ["javascript:alert(1)"]}"#, "associatedDomains.relatedOrigins"),
        (#"{"relatedOrigins": ["example.co.uk"]}"#, "associatedDomains.relatedOrigins"),
        (#"{"relatedOrigins": ["https://example.co.uk", "https://example.co.uk"]}"#, "associatedDomains.relatedOrigins"),
        (#"{"relatedOrigins": []}"#, "associatedDomains.relatedOrigins"),
        (#"{"relatedOrigins": "https://example.co.uk"}"#, "associatedDomains.relatedOrigins"),
        // Passkey endpoints.
        (#"{"passkeyEndpoints": {"enroll": "/account/passkeys/new"}}"#, "associatedDomains.passkeyEndpoints.enroll"),
        (#"{"passkeyEndpoints": {"manage": "javascript:alert(1)"}}"#, "associatedDomains.passkeyEndpoints.manage"),
        (#"{"passkeyEndpoints": {"prfUsageDetails": "http://example.com/prf"}}"#, "associatedDomains.passkeyEndpoints.prfUsageDetails"),
        (#"{"passkeyEndpoints": {"enroll": "https://"}}"#, "associatedDomains.passkeyEndpoints.enroll"),
        (#"{"passkeyEndpoints": {"enroll": "https://user:secret@example.com/new"}}"#, "associatedDomains.passkeyEndpoints.enroll"),
        (#"{"passkeyEndpoints": {"enroll": 5}}"#, "associatedDomains.passkeyEndpoints.enroll"),
        (#"{"passkeyEndpoints": {"signup": "https://example.com/new"}}"#, "associatedDomains.passkeyEndpoints.signup"),
        (#"{"passkeyEndpoints": []}"#, "associatedDomains.passkeyEndpoints"),
        (#"{"ios": {}}"#, "associatedDomains.ios"),
    ]

    @Test(arguments: AssociatedDomainsConfigurationTests.refused)
    func refusalNamesItsKey(block: String, key: String) {
        #expect {
            try Self.load(block)
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.key == key && !error.reason.isEmpty
        }
    }

    /// An explicitly configured Android origin that is not base64url of 32 bytes, or that is not one of the block's
    /// fingerprints, stops the start-up naming `relyingParty.origins`.
    @Test(arguments: [
        ("android:apk-key-hash:!!not base64!!", nil as String?),
        ("android:apk-key-hash:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd", nil),
        ("android:apk-key-hash:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=", nil),
        (
            "android:apk-key-hash:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8",
            #"{"android": [{"package": "com.example.app", "sha256CertFingerprints": ["\#(otherFingerprint)"]}]}"#
        ),
    ])
    func contradictingAndroidOriginIsRefused(origin: String, block: String?) {
        #expect {
            try Self.load(block ?? "{}", relyingParty: #"{"id": "example.com", "origins": ["https://example.com", "\#(origin)"]}"#)
        } throws: { error in
            (error as? ConfigurationError)?.key == "relyingParty.origins"
        }
    }

    @Test func androidOriginsAreDerivedFromTheFingerprints() throws {
        let configuration = try Self.load(
            #"{"android": [\#(Self.app), {"package": "com.example.links", "sha256CertFingerprints": ["\#(Self.otherFingerprint)"], "relations": ["delegate_permission/common.handle_all_urls"]}]}"#,
            relyingParty: #"{"id": "example.com", "origins": ["https://example.com"]}"#
        )
        // The app without get_login_creds may open links but gets no origin: Credential Manager would not let it use passkeys.
        #expect(configuration.acceptedOrigins == ["https://example.com", Self.origin])
        #expect(configuration.associatedDomains.android.map(\.relations) == [AndroidApp.defaultRelations, [AndroidApp.allURLs]])
    }

    @Test func anExplicitOriginThatAgreesIsAcceptedOnce() throws {
        let configuration = try Self.load(
            #"{"android": [\#(Self.app)]}"#,
            relyingParty: #"{"id": "example.com", "origins": ["https://example.com", "\#(Self.origin)"]}"#
        )
        #expect(configuration.acceptedOrigins == ["https://example.com", Self.origin])
    }

    /// Without an Android block (assetlinks.json published elsewhere) an explicit, well-formed origin is the operator's.
    @Test func anExplicitOriginWithoutAnAndroidBlockIsAccepted() throws {
        let configuration = try Self.load("{}", relyingParty: #"{"id": "example.com", "origins": ["https://example.com", "\#(Self.origin)"]}"#)
        #expect(configuration.acceptedOrigins == ["https://example.com", Self.origin])
    }

    @Test(arguments: [
        fingerprint, fingerprint.lowercased(), fingerprint.replacingOccurrences(of: ":", with: ""),
        fingerprint.replacingOccurrences(of: ":", with: "").lowercased(),
        "00:01:02:03:04:05:06:07:08:09:0a:0B:0c:0D:0e:0F:10:11:12:13:14:15:16:17:18:19:1a:1b:1c:1d:1e:1f",
    ])
    func everyFingerprintFormIsPublishedInGooglesForm(text: String) throws {
        let configuration = try Self.load(#"{"android": [{"package": "com.example.app", "sha256CertFingerprints": ["\#(text)"]}]}"#)
        #expect(configuration.associatedDomains.android.first?.certificateFingerprints == [Self.fingerprint])
        #expect(configuration.associatedDomains.origins == [Self.origin])
    }

    @Test(arguments: ["com.example.app", "com.Example.App_2", "a.b", "org.example.native"])
    func applicationIDsFollowAndroidsRule(package: String) {
        #expect(AndroidApp.isPackageName(package))
    }

    @Test func relatedOriginsArePublishedAndAccepted() throws {
        let configuration = try Self.load(
            #"{"relatedOrigins": ["https://example.co.uk", "https://shop.example.de:8443"]}"#,
            relyingParty: #"{"id": "example.com", "origins": ["https://example.com"]}"#
        )
        #expect(configuration.acceptedOrigins == ["https://example.com", "https://example.co.uk", "https://shop.example.de:8443"])
        #expect(configuration.associatedDomains.warnings.isEmpty)
    }

    @Test(arguments: [
        ("example.com", "example"), ("www.example.com", "example"), ("example.co.uk", "example"), ("shop.example.co.uk", "example"),
        ("example.com.au", "example"), ("example.de", "example"), ("example.ne.jp", "example"), ("other.example", "other"),
        ("co.uk", "co"), ("localhost", "localhost"), ("example.app.uk", "app"), ("user.github.io", "github"),
    ])
    func registrableLabelIsApproximatedWithoutThePublicSuffixList(host: String, label: String) {
        #expect(RelatedOrigins.label(ofHost: host) == label)
    }

    @Test func moreThanFiveLabelsIsAWarningNotARefusal() throws {
        let five = [
            "https://example.co.uk", "https://example.de", "https://shop.example.fr", "https://a-brand.com", "https://b-brand.com",
            "https://c-brand.com",
            "https://d-brand.com",
        ]
        let fine = try Self.load(#"{"relatedOrigins": [\#(five.prefix(7).dropLast(2).map { "\"\($0)\"" }.joined(separator: ","))]}"#)
        #expect(fine.associatedDomains.warnings.isEmpty, "example, a-brand, b-brand: three labels")
        let many = ["https://a.com", "https://b.com", "https://c.co.uk", "https://d.de", "https://e.com.au", "https://f.fr", "https://www.a.com"]
        let configuration = try Self.load(#"{"relatedOrigins": [\#(many.map { "\"\($0)\"" }.joined(separator: ","))]}"#)
        let warning = try #require(configuration.associatedDomains.warnings.first)
        #expect(configuration.associatedDomains.warnings.count == 1)
        #expect(warning.hasPrefix("associatedDomains.relatedOrigins: 6 registrable-domain labels (a, b, c, d, e, f)"))
        #expect(configuration.acceptedOrigins.count == 1 + many.count, "a warning, not a refusal: every origin is still accepted")
    }

    @Test func bothApplinksSchemasAndEveryComponentKeyAreAccepted() throws {
        let configuration = try Self.load(
            """
            {"applinks": {"defaults": {"caseSensitive": false, "percentEncoded": true},
              "substitutionVariables": {"food": ["taco", "burrito"]},
              "apps": [],
              "details": [
                {"appIDs": ["ABCDE12345.com.example.app", "ABCDE12345.com.example.other"],
                 "components": [{"#": "nolink", "exclude": true, "comment": "no fragment links"}, {"/": "/help/*", "?": {"article": "????"}},
                                {"/": "/buy/*", "caseSensitive": true, "percentEncoded": false}, {"?": "ref=*"}],
                 "defaults": {"caseSensitive": true}},
                {"appID": "ABCDE12345.com.example.legacy", "paths": ["/old/*", "NOT /old/private/*"]}
              ]},
             "appclips": {"apps": ["ABCDE12345.com.example.app.Clip"]}}
            """
        )
        let association = try #require(configuration.associatedDomains.appleAppSiteAssociation)
        #expect(association.appClipApps == ["ABCDE12345.com.example.app.Clip"])
        #expect(association.appLinkApps == ["ABCDE12345.com.example.app", "ABCDE12345.com.example.other", "ABCDE12345.com.example.legacy"])
    }

    @Test func passkeyEndpointsTakePRFUsageDetailsAndMayBeEmpty() throws {
        let all = try Self.load(
            #"{"passkeyEndpoints": {"enroll": "https://example.com/new", "manage": "https://example.com/keys", "prfUsageDetails": "https://example.com/prf"}}"#
        )
        #expect(all.associatedDomains.passkeyEndpoints?.urls.count == 3)
        let empty = try Self.load(#"{"passkeyEndpoints": {}}"#)
        #expect(empty.associatedDomains.passkeyEndpoints?.urls == [:])
    }
}
