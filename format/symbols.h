/*
 * symbols.h — call sites to "file.c:42", or "function+0x1a (module)" where
 * the module has no line information.  Uses libdw, only in the tool (never in
 * the runtime).  Resolution is cached per (module, offset), so the ranks of
 * one job share the work even though their address spaces differ.
 */
#ifndef ML_SYMBOLS_H
#define ML_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "reader.h"

/* Resolve `site` of rank file f into buf; returns buf. */
const char *sym_site(const struct mlr_file *f, uint32_t site, char *buf, size_t n);
/* Same for a raw return address of that process. */
const char *sym_addr(const struct mlr_file *f, uint64_t addr, char *buf, size_t n);
/* Same for an address inside the mapping mm (path NUL-terminated). */
const char *sym_module_addr(const struct ml_module *mm, uint64_t addr, char *buf, size_t n);
void sym_cleanup(void);

#endif
