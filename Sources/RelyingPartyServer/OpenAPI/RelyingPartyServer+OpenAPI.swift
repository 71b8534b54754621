import HTTPServer

extension RelyingPartyServer {
    /// `GET /openapi.json`: the OpenAPI 3.1 document of every JSON endpoint (`OpenAPI/openapi.json`, compiled into the
    /// binary). `Tests/Python/openapi` validates real requests and answers against it.
    func openAPIDocument(_ request: HTTPRequest) -> HTTPResponse {
        var response = HTTPResponse.json(status: 200, PackageResources.openapi_json)
        response.headers.add("Cache-Control", "public, max-age=3600")
        return response
    }
}
