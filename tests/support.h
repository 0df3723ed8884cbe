/* Shared test helpers: a counting allocator with fault injection, and small assertions. */
#ifndef SINEW_TESTS_SUPPORT_H
#define SINEW_TESTS_SUPPORT_H
#include <stddef.h>

/* Installs a counting allocator through sinew_set_allocator(). */
void test_alloc_install(void);
/* Restores the default allocator. */
void test_alloc_uninstall(void);
/* The allocation number (1-based, counted since install/reset) that fails; 0 = never. */
void test_alloc_fail_at(long n);
long test_alloc_count(void);   /* allocations made since the last reset */
long test_alloc_live(void);    /* blocks currently allocated through the hook */
size_t test_alloc_live_bytes(void); /* bytes in those blocks */
void test_alloc_reset(void);

#endif
