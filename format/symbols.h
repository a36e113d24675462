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
/* The site's call chain (recorded with mpilens run -k N):
 * "inner.c:12 < caller.c:40 < main.c:7", innermost first, frames separated
 * by " < " (a frame never holds a space); only the innermost where the file
 * has no chains (then the same as sym_site).  Whole frames only: where buf
 * is too short the rest is " < ..". */
const char *sym_stack(const struct mlr_file *f, uint32_t site, char *buf, size_t n);
/* Same for a raw return address of that process. */
const char *sym_addr(const struct mlr_file *f, uint64_t addr, char *buf, size_t n);
/* Same for an address inside the mapping mm (path NUL-terminated). */
const char *sym_module_addr(const struct ml_module *mm, uint64_t addr, char *buf, size_t n);
void sym_cleanup(void);

/* C++ names: "_ZN9LAMMPS_NS9CommBrick12reverse_commEv" as
 * "LAMMPS_NS::CommBrick::reverse_comm()" (malloc'd), NULL when name is not
 * a mangled C++ name (demangle.cc: libstdc++'s demangler).  The call sites
 * above come out demangled already, as one token (no spaces: "f(int,char)const",
 * "g(unsigned_long)"). */
#ifdef __cplusplus
extern "C"
#endif
char *sym_demangle(const char *name);

/* A call site's text fitted into w columns (into b, returned), one policy
 * for every table: what is kept last is the function's own name and the
 * line (or offset); cuts are marked "..".  "file.c:42" loses the start of
 * its directory and file name ("..le.c:42"); "ns::Class::fn(int)+0x1a(lib.so)"
 * loses its namespaces and classes first, one at a time
 * ("..Class::fn(int)+0x1a(lib.so)", "..fn(int)+0x1a(lib.so)"), then the
 * module, then the parameters ("..fn(..)+0x1a"), then the start of the name. */
const char *sym_fit(const char *site, size_t w, char *b, size_t n);
/* (A call chain of sym_stack keeps its innermost frame, fitted alone if even
 * that is too wide, then its callers while they fit whole; " < .." marks the
 * callers dropped.) */
/* The narrowest column sym_fit fits site into without cutting the
 * function's own name or the file's base name ("..fn(..)+0x1a", "..file.c:42"):
 * what a table gives its site column where it can. */
size_t sym_fit_min(const char *site);

#endif
