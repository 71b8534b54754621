import Foundation
import TestSupport

/// The attestation statements the registration happy path runs every algorithm through.
enum AttestationChoice: String, CaseIterable, Sendable {
    case none
    case packedSelf
    case packedCertificate
    case packedCertificateWithAAGUID

    func kind(at time: Date) throws -> AttestationKind {
        switch self {
        case .none: .none
        case .packedSelf: .packedSelf
        case .packedCertificate: .packed(try AttestationCertificates.make(at: time))
        case .packedCertificateWithAAGUID: .packed(try AttestationCertificates.make(at: time, aaguid: RegistrationOptions.testAAGUID))
        }
    }
}
