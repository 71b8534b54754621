"""clients/web as the npm package an app installs: `npm pack` makes the tarball (exactly the module, its types, its
README and package.json, at passkeyd's version), a fresh app folder installs it offline with `npm install`, Debian's
esbuild bundles the app's entry point, which imports `@passkeyd/web` by its package name, and headless Chromium runs
the bundle on the app's own origin against a real passkeyd: register, an access token, sign out, sign in."""

import json
import re
import shutil
import subprocess
import tarfile

import pytest

from conftest import REPO, platform_authenticator, unique

WEB = REPO / "clients" / "web"

ENTRY = """import { createPasskeyd, ErrorCode, PasskeydError } from "@passkeyd/web";

// The app's code: everything through the package, nothing of its own.
window.throughThePackage = async (api, username) => {
  const passkeyd = createPasskeyd({ baseURL: api });
  const registered = await passkeyd.register({ username });
  const token = await passkeyd.accessToken();
  await passkeyd.signOut();
  const afterSignOut = await passkeyd.account().then(() => "signed in", (e) => [e instanceof PasskeydError, e.code]);
  const signedIn = await passkeyd.signIn({ username });
  return { registered, token, afterSignOut, signedIn, aborted: ErrorCode.ABORTED };
};
"""

PAGE = """<!doctype html><meta charset="utf-8"><title>The app, bundled</title><script src="/bundle.js"></script>"""


def version() -> str:
    source = (REPO / "Sources" / "passkeyd" / "Version.swift").read_text()
    return re.search(r'static let number = "([^"]+)"', source).group(1)


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> str:
    for tool in ("npm", "esbuild"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is missing: `make browser-deps` installs it")
    folder = tmp_path_factory.mktemp("npm")
    packed = subprocess.run(["npm", "pack", "--json", "--pack-destination", str(folder), str(WEB)],
                            capture_output=True, text=True, check=True, timeout=120)
    tarball = folder / json.loads(packed.stdout)[0]["filename"]
    with tarfile.open(tarball) as archive:
        assert sorted(archive.getnames()) == sorted(
            f"package/{name}" for name in ("package.json", "passkeyd.js", "passkeyd.d.ts", "README.md"))

    app = folder / "app"
    (app / "src").mkdir(parents=True)
    (app / "package.json").write_text(json.dumps({"name": "app", "private": True, "type": "module"}))
    (app / "src" / "main.js").write_text(ENTRY)
    subprocess.run(["npm", "install", "--offline", "--no-audit", "--no-fund", str(tarball)], cwd=app,
                   capture_output=True, text=True, check=True, timeout=120)
    installed = app / "node_modules" / "@passkeyd" / "web"
    assert (installed / "passkeyd.js").read_text() == (WEB / "passkeyd.js").read_text()
    subprocess.run(["esbuild", "src/main.js", "--bundle", "--format=iife", "--outfile=bundle.js"], cwd=app,
                   capture_output=True, text=True, check=True, timeout=120)
    return (app / "bundle.js").read_text()


def test_the_package_is_at_passkeyds_version_and_resolves_by_its_exports():
    manifest = json.loads((WEB / "package.json").read_text())
    assert manifest["version"] == version(), "clients/web/package.json's version follows Sources/passkeyd/Version.swift"
    assert manifest["type"] == "module" and "dependencies" not in manifest
    assert manifest["exports"]["."] == {"types": "./passkeyd.d.ts", "default": "./passkeyd.js"}
    # Node resolves the package's own name through `exports` (a self-reference) and the module loads outside a browser.
    loaded = subprocess.run(["node", "--input-type=module", "-e",
                             "const m = await import('@passkeyd/web'); console.log(typeof m.createPasskeyd)"],
                            cwd=WEB, capture_output=True, text=True, timeout=60)
    assert loaded.returncode == 0 and loaded.stdout.strip() == "function", loaded.stderr


def test_an_app_bundles_the_installed_package_and_signs_in_through_it(page, servers, page_servers, bundle):
    # esbuild took the module from the installed package and inlined it: no import is left for the browser.
    assert "// node_modules/@passkeyd/web/passkeyd.js" in bundle and 'from "@passkeyd/web"' not in bundle
    site = page_servers({"/": PAGE, "/bundle.js": bundle})
    server = servers(extraOrigins=[site.url], cors={"allowedOrigins": [site.url]})
    page.add_authenticator(platform_authenticator())
    username = unique("npm")

    page.driver.get(site.url + "/")
    result = page.driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "window.throughThePackage(arguments[0], arguments[1]).then(done, (e) => done({thrown: String(e)}));",
        server.url, username)
    page.shot("bundled-package")
    assert "thrown" not in result, result
    assert result["registered"]["verified"] is True
    assert result["registered"]["account"]["user"]["username"] == username
    assert result["token"]["tokenType"] == "Bearer" and result["token"]["accessToken"].count(".") == 2
    assert result["afterSignOut"] == [True, "not_signed_in"]
    assert result["signedIn"]["user"]["id"] == result["registered"]["user"]["id"]
    assert result["aborted"] == "aborted"
