#ifndef PASSKEYD_CMALLOC_SHIM_H
#define PASSKEYD_CMALLOC_SHIM_H
// glibc's allocator tuning (mallopt), which Swift's Glibc module does not carry.
#include <malloc.h>
#endif
