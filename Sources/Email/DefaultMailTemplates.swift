/// The templates shipped in the binary: short, plain, and readable in common mail clients (a single column of at
/// most 560 pixels, inline styles only, no images, no remote content). A file of `email.templates` replaces one.
package enum DefaultMailTemplates {
    package static func parts(of kind: MailKind) -> (subject: String, text: String, html: String) {
        switch kind {
        case .verifyAddress:
            (
                "Verify your email address for {{appName}}",
                """
                Enter this code in {{appName}} to verify your email address:

                    {{code}}

                Or open this link and confirm:
                {{link}}

                The code and the link expire in {{expiresMinutes}} minutes. If you did not ask for this, ignore this message.

                """,
                page(
                    title: "Verify your email address",
                    body: """
                        <p>Enter this code in {{appName}} to verify your email address:</p>
                        <p style="font-size:28px;letter-spacing:6px;font-weight:bold;margin:24px 0">{{code}}</p>
                        <p>Or confirm with this button:</p>
                        \(button("Verify my address"))
                        <p style="color:#666">The code and the link expire in {{expiresMinutes}} minutes. If you did not ask for this, ignore this message.</p>
                        """
                )
            )
        case .addressChanged:
            (
                "Your {{appName}} email address was changed",
                """
                The email address of your {{appName}} account was changed on {{time}}; mail now goes to the new address.

                If you did not make this change, contact {{appName}}'s support at once.

                """,
                page(
                    title: "Your email address was changed",
                    body: """
                        <p>The email address of your {{appName}} account was changed on {{time}}; mail now goes to the new address.</p>
                        <p>If you did not make this change, contact {{appName}}'s support at once.</p>
                        """
                )
            )
        case .recovery:
            (
                "Recover your {{appName}} account",
                """
                Someone (we hope you) asked to recover your {{appName}} account. Open this link and confirm to add a new passkey:
                {{link}}

                The link works once and expires in {{expiresMinutes}} minutes. If you did not ask for this, ignore this message: nothing changes.

                """,
                page(
                    title: "Recover your account",
                    body: """
                        <p>Someone (we hope you) asked to recover your {{appName}} account. Confirm to add a new passkey:</p>
                        \(button("Recover my account"))
                        <p style="color:#666">The link works once and expires in {{expiresMinutes}} minutes. If you did not ask for this, ignore this message: nothing changes.</p>
                        """
                )
            )
        case .securityNotice:
            (
                "Security notice for your {{appName}} account",
                """
                {{notice}} ({{time}})

                If this was you, there is nothing to do. If it was not, sign in to {{appName}} and review your passkeys and sessions, or contact support.

                """,
                page(
                    title: "Security notice",
                    body: """
                        <p><strong>{{notice}}</strong> ({{time}})</p>
                        <p>If this was you, there is nothing to do. If it was not, sign in to {{appName}} and review your passkeys and sessions, or contact support.</p>
                        """
                )
            )
        case .enrollment:
            (
                "Set up a passkey for {{appName}}",
                """
                You are invited to set up a passkey for your {{appName}} account. Open this link on the device you want to use:
                {{link}}

                The link expires in {{expiresHours}} hours.

                """,
                page(
                    title: "Set up your passkey",
                    body: """
                        <p>You are invited to set up a passkey for your {{appName}} account. Open the link on the device you want to use.</p>
                        \(button("Set up my passkey"))
                        <p style="color:#666">The link expires in {{expiresHours}} hours.</p>
                        """
                )
            )
        }
    }

    private static func button(_ label: String) -> String {
        """
        <p style="margin:24px 0"><a href="{{link}}" style="background:#1a56db;color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;display:inline-block">\(label)</a></p>
        <p style="color:#666;font-size:13px">If the button does not work, copy this link: {{link}}</p>
        """
    }

    private static func page(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>\(title)</title></head>
        <body style="margin:0;padding:24px;background:#f4f4f5;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;font-size:16px;line-height:1.5;color:#111">
        <div style="max-width:560px;margin:0 auto;background:#ffffff;padding:32px;border-radius:8px">
        <h1 style="font-size:20px;margin:0 0 16px">\(title)</h1>
        \(body)
        </div>
        </body></html>

        """
    }
}
