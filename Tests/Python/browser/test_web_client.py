"""clients/web/passkeyd.js, the browser client the demo page is built on, used directly from a page: its error
mapping (every DOMException name and passkeyd's error bodies to a stable code and a human sentence) and its
handling of autofill when another ceremony starts. The page's own tests (the other files) run every ceremony
through it; test_page_fallback_without_json_helpers runs its fallback for parseCreationOptionsFromJSON."""

from conftest import REPO, assert_human, platform_authenticator


def test_demo_page_serves_the_client_module_unchanged():
    """www/passkeyd.js is the module of clients/web, byte for byte (www/ is what passkeyd serves and installs)."""
    assert (REPO / "www" / "passkeyd.js").read_bytes() == (REPO / "clients" / "web" / "passkeyd.js").read_bytes(), (
        "www/passkeyd.js differs from clients/web/passkeyd.js: cp clients/web/passkeyd.js www/")


def run_module(page, body: str):
    """Runs `body` (an async function body with `m`, the module) in the page and returns its result."""
    return page.driver.execute_async_script(
        """const done = arguments[arguments.length - 1];
        import("/passkeyd.js").then(async (m) => { %s }).then(done, (e) => done({thrown: String(e)}));""" % body)


def test_browser_failures_map_to_stable_codes(page, server):
    page.open(server)
    mapped = run_module(page, """
        const cases = [["AbortError", "get"], ["NotAllowedError", "get"], ["InvalidStateError", "create"],
                       ["InvalidStateError", "get"], ["SecurityError", "create"], ["NotSupportedError", "create"],
                       ["ConstraintError", "create"], ["UnknownError", "get"]];
        const out = cases.map(([name, ceremony]) => {
          const e = m.toPasskeydError(new DOMException("raw detail", name), ceremony);
          return [name, ceremony, e.code, e.message, e instanceof m.PasskeydError, e.cause.name];
        });
        const late = m.toPasskeydError(new DOMException("x", "NotAllowedError"), "get", {startedAt: Date.now() - 5000, timeout: 4000});
        out.push(["NotAllowedError", "after the timeout", late.code, late.message, true, "NotAllowedError"]);
        const offline = m.toPasskeydError(new TypeError("Failed to fetch"), "fetch");
        out.push(["TypeError", "fetch", offline.code, offline.message, true, "TypeError"]);
        return out;""")
    codes = {(name, ceremony): code for name, ceremony, code, _, _, _ in mapped}
    assert codes == {
        ("AbortError", "get"): "aborted",
        ("NotAllowedError", "get"): "cancelled",
        ("InvalidStateError", "create"): "credential_excluded",
        ("InvalidStateError", "get"): "unknown",
        ("SecurityError", "create"): "origin_mismatch",
        ("NotSupportedError", "create"): "not_supported",
        ("ConstraintError", "create"): "constraint",
        ("UnknownError", "get"): "unknown",
        ("NotAllowedError", "after the timeout"): "timed_out",
        ("TypeError", "fetch"): "network",
    }
    for name, _, code, message, is_passkeyd_error, cause in mapped:
        assert is_passkeyd_error and cause == name
        assert "raw detail" not in message
        assert_human(message)
    assert {code: message for _, _, code, message, _, _ in mapped}["credential_excluded"] == (
        "This authenticator already holds a passkey for this account.")


def test_passkeyd_error_bodies_map_to_their_codes(page, server):
    """The server's code is the error's code; the module's sentence where it has one, else the server's message;
    status, step, member and Retry-After are kept; an answer that is not passkeyd's JSON is still a PasskeydError."""
    page.open(server)
    errors = run_module(page, """
        const answers = {
          "/webauthn/authentication/options": [429, {error: "rate_limited", message: "Too many requests."}, {"Retry-After": "7"}],
          "/me": [400, {error: "verification_failed", message: "The passkey could not be verified.", step: "clientData.originMismatch"}, {}],
          "/me/passkeys": [502, null, {}],
        };
        const fakeFetch = async (url) => {
          const [status, body, headers] = answers[new URL(url, location.href).pathname];
          return new Response(body ? JSON.stringify(body) : "<html>bad gateway</html>", {status, headers});
        };
        const client = m.createPasskeyd({fetch: fakeFetch});
        const out = [];
        for (const call of [() => client.signIn(), () => client.account(), () => client.listPasskeys()]) {
          try { await call(); out.push("resolved"); }
          catch (e) { out.push({name: e.name, code: e.code, status: e.status, step: e.step || null, retryAfter: e.retryAfter || null, message: e.message}); }
        }
        // A real one: a taken username, through the real server.
        const real = m.createPasskeyd();
        try { await real.register({username: ""}); } catch (e) { out.push({code: e.code, status: e.status, member: e.member, message: e.message}); }
        return out;""")
    limited, refused, gateway, invalid = errors
    assert limited == {"name": "PasskeydError", "code": "rate_limited", "status": 429, "step": None, "retryAfter": 7,
                       "message": "Too many attempts; wait a moment."}
    assert refused["code"] == "verification_failed" and refused["step"] == "clientData.originMismatch"
    assert refused["message"] == "The passkey could not be verified."
    assert gateway["code"] == "unknown" and gateway["status"] == 502
    assert_human(gateway["message"])
    assert invalid["code"] == "invalid_username" and invalid["status"] == 400 and invalid["member"] == "username"
    assert_human(invalid["message"])


def test_autofill_is_aborted_cleanly_when_another_ceremony_starts(page, server):
    """An autofill request waits for the person; a click on a sign-in button starts a modal ceremony, which aborts
    it first: the autofill promise rejects with code "aborted" (which a page keeps quiet) and the modal ceremony
    runs (and, with no passkey on the authenticator, is cancelled)."""
    page.add_authenticator(platform_authenticator())
    page.open(server)  # the demo's own autofill is off (autofill=off)
    outcome = run_module(page, """
        const client = m.createPasskeyd();
        if (!(await client.isAutofillAvailable())) return "autofill unavailable";
        let waiting;
        const started = new Promise((resolve) => { waiting = resolve; });
        const autofill = client.signInWithAutofill(document.getElementById("username"), {onWaiting: waiting})
          .then(() => "signed in", (e) => e.code);
        await started;
        const modal = await client.signIn().then(() => "signed in", (e) => e.code);
        return [await autofill, modal];""")
    assert outcome == ["aborted", "cancelled"], outcome
