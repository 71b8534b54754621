import ConfigurationReading
import Foundation

/// The content checks: each file against the rules passkeyd publishes by, then the apps given against the files.
extension DomainCheck {
    /// One `android_app` statement of a published `assetlinks.json`.
    struct PublishedStatement {
        let relations: [String]
        let packageName: String
        let fingerprints: [CertificateFingerprint]
    }

    func checkAssociation(_ file: Fetched, into report: inout DomainCheckReport) -> AppleAppSiteAssociation? {
        let name = "apple-app-site-association content"
        do throws(ConfigurationError) {
            let reader = try ConfigurationReader(file.json, path: "")
            guard let association = try AppleAppSiteAssociation(reader) else {
                report.record(name, .fail, "has none of webcredentials, applinks and appclips")
                return nil
            }
            let others = reader.members.keys.filter { !AppleAppSiteAssociation.services.contains($0) }.sorted()
            let detail =
                "webcredentials: \(Self.count(association.webCredentialApps.count, "app")); "
                + "applinks: \(Self.count(association.appLinkApps.count, "app")); appclips: \(Self.count(association.appClipApps.count, "app"))"
                + (others.isEmpty ? "" : "; also \(others.joined(separator: ", ")) (not checked)")
            if association.webCredentialApps.isEmpty {
                report.record(name, .warn, detail + ": without webcredentials no app can use this domain's passkeys")
            } else {
                report.record(name, .pass, detail)
            }
            return association
        } catch {
            report.record(name, .fail, error.description)
            return nil
        }
    }

    func checkAssetLinks(_ file: Fetched, into report: inout DomainCheckReport) -> [PublishedStatement]? {
        let name = "assetlinks.json content"
        guard let items = file.json.arrayValue, !items.isEmpty else {
            report.record(name, .fail, "is not a list of statements ([{\"relation\": [...], \"target\": {...}}])")
            return nil
        }
        var statements: [PublishedStatement] = []
        var unlike: [String] = []
        do throws(ConfigurationError) {
            for (index, item) in items.enumerated() {
                let statement = try ConfigurationReader(item, path: "[\(index)]")
                if statement.has("include") {
                    try statement.only(["include"])
                    _ = try statement.requiredString("include")
                    continue
                }
                try statement.only(["relation", "target", "relation_extensions"])
                guard let relations = try statement.strings("relation"), !relations.isEmpty else {
                    throw ConfigurationError(.missingValue, key: statement.key("relation"), "must list at least one relation")
                }
                for relation in relations where !AndroidApp.isRelation(relation) {
                    throw ConfigurationError(.invalidValue, key: statement.key("relation"), "\(relation.prefix(100)) is not a relation")
                }
                guard let target = try statement.object("target") else {
                    throw ConfigurationError(.missingValue, key: statement.key("target"), "is required")
                }
                switch try target.requiredString("namespace") {
                case "web":
                    try target.only(["namespace", "site"])
                    _ = try target.requiredString("site")
                case "android_app":
                    try target.only(["namespace", "package_name", "sha256_cert_fingerprints"])
                    let package = try target.requiredString("package_name")
                    guard AndroidApp.isPackageName(package) else {
                        throw ConfigurationError(
                            .invalidValue,
                            key: target.key("package_name"),
                            "\(package.prefix(100)) is not an Android application ID"
                        )
                    }
                    guard let texts = try target.strings("sha256_cert_fingerprints"), !texts.isEmpty else {
                        throw ConfigurationError(.missingValue, key: target.key("sha256_cert_fingerprints"), "must list at least one fingerprint")
                    }
                    let fingerprints = try CertificateFingerprint.parse(texts, key: target.key("sha256_cert_fingerprints"))
                    unlike += zip(texts, fingerprints).filter { text, fingerprint in text != fingerprint.published }.map(\.0)
                    statements.append(PublishedStatement(relations: relations, packageName: package, fingerprints: fingerprints))
                case let other:
                    throw ConfigurationError(.invalidValue, key: target.key("namespace"), "\(other.prefix(100)) is not android_app or web")
                }
            }
        } catch {
            report.record(name, .fail, error.description)
            return nil
        }
        let packages = statements.map(\.packageName)
        let detail = "\(Self.count(items.count, "statement"))" + (packages.isEmpty ? ", no Android app" : " (\(packages.joined(separator: ", ")))")
        if let first = unlike.first {
            report.record(name, .warn, detail + "; \(first.prefix(100)) is not in Google's form (upper-case hex, colon-separated)")
        } else {
            report.record(name, .pass, detail)
        }
        return statements
    }

    func checkRelatedOrigins(_ file: Fetched, into report: inout DomainCheckReport) -> RelatedOrigins? {
        let name = "webauthn content"
        do throws(ConfigurationError) {
            let reader = try ConfigurationReader(file.json, path: "")
            guard let origins = try reader.strings("origins") else {
                throw ConfigurationError(.missingValue, key: "origins", "must list the related origins")
            }
            let related = try RelatedOrigins(origins, key: "origins")
            let labels = related.labels
            let detail = "\(Self.count(origins.count, "related origin")), \(Self.count(labels.count, "label")) (\(labels.joined(separator: ", ")))"
            if let warning = related.labelWarning {
                report.record(name, .warn, warning)
            } else {
                report.record(name, .pass, detail)
            }
            return related
        } catch {
            report.record(name, .fail, error.description)
            return nil
        }
    }

    func checkPasskeyEndpoints(_ file: Fetched, relatedOrigins: RelatedOrigins?, into report: inout DomainCheckReport) {
        let name = "passkey-endpoints content"
        guard let members = file.json.objectValue else {
            report.record(name, .fail, "is not a JSON object")
            return
        }
        let endpoints: PasskeyEndpoints
        do throws(ConfigurationError) {
            endpoints = try PasskeyEndpoints(ConfigurationReader(.object(members.filter { PasskeyEndpoints.members.contains($0.key) }), path: ""))
        } catch {
            report.record(name, .fail, error.description)
            return
        }
        let unknown = members.keys.filter { !PasskeyEndpoints.members.contains($0) }.sorted()
        let elsewhere = endpoints.urls.sorted { $0.key < $1.key }.filter { !isOwnOrRelated($0.value, relatedOrigins) }
        let listed = endpoints.urls.keys.sorted()
        let detail = listed.isEmpty ? "{} (passkeys supported, no endpoints)" : listed.joined(separator: ", ")
        if let (member, url) = elsewhere.first {
            report.record(name, .warn, detail + "; \(member) (\(url.prefix(100))) is on neither this domain nor a related origin")
        } else if !unknown.isEmpty {
            report.record(name, .warn, detail + "; \(unknown.joined(separator: ", ")) not in the draft (clients ignore it)")
        } else {
            report.record(name, .pass, detail)
        }
    }

    /// Each `--app` against `webcredentials.apps`.
    func checkApps(_ association: AppleAppSiteAssociation?, into report: inout DomainCheckReport) {
        for app in apps {
            let name = "app \(app)"
            guard let association else {
                report.record(name, .fail, "apple-app-site-association is not usable, so the app cannot use this domain's passkeys")
                continue
            }
            guard association.webCredentialApps.contains(app) else {
                let bundle = app.split(separator: ".", maxSplits: 1).last.map(String.init) ?? app
                let sameBundle = association.webCredentialApps.first { $0.hasSuffix("." + bundle) }
                let hint = sameBundle.map { "; \($0) has another team ID: it must be the app's own" } ?? ""
                report.record(
                    name,
                    .fail,
                    "is not in webcredentials.apps (\(association.webCredentialApps.isEmpty ? "none" : association.webCredentialApps.joined(separator: ", ")))\(hint)"
                )
                continue
            }
            let links = association.appLinkApps.contains(app) ? "; it also opens universal links (applinks)" : ""
            report.record(name, .pass, "in webcredentials.apps; the app's entitlement needs webcredentials:\(host)\(links)")
        }
    }

    /// Each `--android` against the published statements.
    func checkAndroidApps(_ statements: [PublishedStatement]?, into report: inout DomainCheckReport) {
        for target in androidApps {
            let name = "android \(target.packageName)"
            guard let statements else {
                report.record(name, .fail, "assetlinks.json is not usable, so the app cannot use this domain's passkeys")
                continue
            }
            let own = statements.filter { $0.packageName == target.packageName }
            guard !own.isEmpty else {
                report.record(name, .fail, "no statement names it (apps: \(Set(statements.map(\.packageName)).sorted().joined(separator: ", ")))")
                continue
            }
            let signed = own.filter { $0.fingerprints.contains(target.fingerprint) }
            guard !signed.isEmpty else {
                let listed = own.flatMap(\.fingerprints).map(\.published)
                report.record(
                    name,
                    .fail,
                    "the app is signed with \(target.fingerprint.published), which its statement does not list (\(listed.joined(separator: ", "))); "
                        + "with Play App Signing, list the app signing key's SHA-256 from the Play Console"
                )
                continue
            }
            guard signed.contains(where: { $0.relations.contains(AndroidApp.loginCredentials) }) else {
                report.record(
                    name,
                    .fail,
                    "its statement lacks \(AndroidApp.loginCredentials): Credential Manager will not offer the domain's passkeys"
                )
                continue
            }
            report.record(name, .pass, "signed with a listed certificate, granted get_login_creds; its origin is \(target.fingerprint.origin)")
        }
    }

    /// Whether `url` is on this domain (or under it) or on a related origin.
    private func isOwnOrRelated(_ url: String, _ relatedOrigins: RelatedOrigins?) -> Bool {
        guard let components = URLComponents(string: url), let urlHost = components.host?.lowercased() else { return false }
        let urlOrigin = "https://" + urlHost + (components.port.map { ":\($0)" } ?? "")
        return urlHost == host || urlHost.hasSuffix("." + host) || relatedOrigins?.origins.contains(urlOrigin) == true
    }

    static func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
}
