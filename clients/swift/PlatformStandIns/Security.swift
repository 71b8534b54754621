// A stand-in of the few Security (Keychain) declarations KeychainTokenStore.swift uses, with the shapes of Apple's
// SDK, so that the Keychain store is type-checked on Linux. Core Foundation's bridged types are stood in by the Swift
// types they bridge to. Nothing here runs.
import Foundation

public typealias OSStatus = Int32
public typealias CFTypeRef = AnyObject
public typealias CFString = String
public typealias CFDictionary = [String: Any]

public let errSecSuccess: OSStatus = 0
public let errSecItemNotFound: OSStatus = -25300

public let kSecClass: CFString = "class"
public let kSecClassGenericPassword: CFString = "genp"
public let kSecAttrService: CFString = "svce"
public let kSecAttrAccessible: CFString = "pdmn"
public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
public let kSecReturnData: CFString = "r_Data"
public let kSecMatchLimit: CFString = "m_Limit"
public let kSecMatchLimitOne: CFString = "m_LimitOne"
public let kSecValueData: CFString = "v_Data"

public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    fatalError("stand-in")
}
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    fatalError("stand-in")
}
public func SecItemDelete(_ query: CFDictionary) -> OSStatus { fatalError("stand-in") }
