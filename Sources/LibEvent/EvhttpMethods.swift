import CLibEvent

/// HTTP methods as evhttp numbers them (`evhttp_cmd_type`): one for a request, several for what a server allows.
package struct EvhttpMethods: OptionSet, Sendable {
    package let rawValue: UInt32
    @inlinable package init(rawValue: UInt32) { self.rawValue = rawValue }

    package static let get = EvhttpMethods(rawValue: EVHTTP_REQ_GET.rawValue)
    package static let post = EvhttpMethods(rawValue: EVHTTP_REQ_POST.rawValue)
    package static let head = EvhttpMethods(rawValue: EVHTTP_REQ_HEAD.rawValue)
    package static let put = EvhttpMethods(rawValue: EVHTTP_REQ_PUT.rawValue)
    package static let delete = EvhttpMethods(rawValue: EVHTTP_REQ_DELETE.rawValue)
    package static let options = EvhttpMethods(rawValue: EVHTTP_REQ_OPTIONS.rawValue)
    package static let trace = EvhttpMethods(rawValue: EVHTTP_REQ_TRACE.rawValue)
    package static let connect = EvhttpMethods(rawValue: EVHTTP_REQ_CONNECT.rawValue)
    package static let patch = EvhttpMethods(rawValue: EVHTTP_REQ_PATCH.rawValue)
}
