import BackgroundWork
import Email

/// The mail outbox's sending thread of one node (`NodeWork.mailWorker`): `OutboxWorker` running `MailDelivery`, both
/// in the Email module.
typealias MailWorker = OutboxWorker<MailDelivery>
