/*
 * json_out.h — writing JSON: strings escaped (control characters, quotes,
 * invalid UTF-8 replaced by '?'), so anything read from a rank file can go
 * into a JSON document and the document stays valid.
 */
#ifndef ML_JSON_OUT_H
#define ML_JSON_OUT_H

#include <stdio.h>

/* "text" with quotes, escaped. */
void json_str(FILE *out, const char *text);
/* The same for at most n bytes of text. */
void json_strn(FILE *out, const char *text, size_t n);

#endif
