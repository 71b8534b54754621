#ifndef PASSKEYD_CICU_SHIM_H
#define PASSKEYD_CICU_SHIM_H
// ICU renames every function with its version (uspoof_open is a macro for uspoof_open_72), which Swift cannot call
// through the macro: these wrappers give the spoof checker's few calls one stable name.
#include <unicode/uspoof.h>

static inline USpoofChecker *passkeyd_uspoof_open(UErrorCode *status) { return uspoof_open(status); }
static inline void passkeyd_uspoof_close(USpoofChecker *checker) { uspoof_close(checker); }
static inline void passkeyd_uspoof_setChecks(USpoofChecker *checker, int32_t checks, UErrorCode *status) {
    uspoof_setChecks(checker, checks, status);
}
static inline void passkeyd_uspoof_setRestrictionLevel(USpoofChecker *checker, URestrictionLevel level) {
    uspoof_setRestrictionLevel(checker, level);
}
static inline int32_t passkeyd_uspoof_check2UTF8(const USpoofChecker *checker, const char *text, int32_t length, UErrorCode *status) {
    return uspoof_check2UTF8(checker, text, length, NULL, status);
}
static inline int32_t passkeyd_uspoof_getSkeletonUTF8(
    const USpoofChecker *checker, const char *text, int32_t length, char *destination, int32_t capacity, UErrorCode *status) {
    return uspoof_getSkeletonUTF8(checker, 0, text, length, destination, capacity, status);
}
#endif
