import Foundation
import PasskeydClient

// What an app does first: a client, and the nonce hash its Sign in with Apple request carries.
let client = PasskeydClient(baseURL: URL(string: "https://example.com")!)
let nonce = AppleSignInNonce(raw: "abc", expiresAt: Date(timeIntervalSince1970: 0))
print("client for \(client.baseURL.absoluteString), nonce hash \(nonce.hashed)")
