#include "passkeyd_icu.h"
#include <unicode/uspoof.h>

passkeyd_spoof_checker *passkeyd_spoof_checker_open(void) {
    UErrorCode status = U_ZERO_ERROR;
    USpoofChecker *checker = uspoof_open(&status);
    if (checker == NULL || U_FAILURE(status)) { return NULL; }
    uspoof_setChecks(checker, USPOOF_RESTRICTION_LEVEL | USPOOF_MIXED_NUMBERS, &status);
    uspoof_setRestrictionLevel(checker, USPOOF_HIGHLY_RESTRICTIVE);
    if (U_FAILURE(status)) {
        uspoof_close(checker);
        return NULL;
    }
    return (passkeyd_spoof_checker *)checker;
}

void passkeyd_spoof_checker_close(passkeyd_spoof_checker *checker) {
    if (checker != NULL) { uspoof_close((USpoofChecker *)checker); }
}

int32_t passkeyd_spoof_skeleton(
    const passkeyd_spoof_checker *checker, const char *text, int32_t length, char *destination, int32_t capacity) {
    UErrorCode status = U_ZERO_ERROR;
    int32_t written = uspoof_getSkeletonUTF8(
        (const USpoofChecker *)checker, 0, text, length, destination, capacity, &status);
    if (status == U_BUFFER_OVERFLOW_ERROR) { return written > capacity ? written : capacity + 1; }
    if (U_FAILURE(status) || written < 0) { return -1; }
    return written;
}

int32_t passkeyd_spoof_suspicious(const passkeyd_spoof_checker *checker, const char *text, int32_t length) {
    UErrorCode status = U_ZERO_ERROR;
    int32_t result = uspoof_check2UTF8((const USpoofChecker *)checker, text, length, NULL, &status);
    return (U_FAILURE(status) || result != 0) ? 1 : 0;
}
