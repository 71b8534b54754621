extension RelyingPartyServer {
    /// Every admin operation (`AdminService`): what the admin API's routes call, and `passkeyd admin` with the server
    /// stopped.
    public var admin: AdminService { controllers.admin.service }
}
