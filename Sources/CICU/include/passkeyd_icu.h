#ifndef PASSKEYD_ICU_H
#define PASSKEYD_ICU_H
// ICU's spoof checker (Unicode TS #39) behind plain C types. This header names no ICU type on purpose: Foundation
// carries its own copy of ICU's headers (module _FoundationICU), and a Swift module that saw both copies would not
// build ("'UErrorCode' has different definitions in different modules"). Only passkeyd_icu.c includes ICU.
#include <stdint.h>

/// An opaque, configured spoof checker: restriction level Highly Restrictive plus the mixed-numbers check.
typedef struct passkeyd_spoof_checker passkeyd_spoof_checker;

/// A new checker, or NULL when ICU could not make one. Read-only afterwards, so safe to share between threads.
passkeyd_spoof_checker *passkeyd_spoof_checker_open(void);
void passkeyd_spoof_checker_close(passkeyd_spoof_checker *checker);

/// The skeleton (UTS #39 §4) of `length` UTF-8 bytes at `text`, written to `destination` (not terminated).
/// Returns the skeleton's length in bytes; when that is more than `capacity`, nothing usable was written and the
/// caller asks again with a larger buffer. Returns -1 when ICU failed.
int32_t passkeyd_spoof_skeleton(
    const passkeyd_spoof_checker *checker, const char *text, int32_t length, char *destination, int32_t capacity);

/// 0 when the text passes the checker's tests, 1 when it fails one or ICU could not tell (fails closed).
int32_t passkeyd_spoof_suspicious(const passkeyd_spoof_checker *checker, const char *text, int32_t length);
#endif
