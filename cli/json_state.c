// SPDX-License-Identifier: Apache-2.0
// State files: read the bytes, parse with cJSON, check each field's length and finiteness.
#include "json_state.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

// largest state file accepted (a state of a million doubles is far below this)
#define STATE_MAX_BYTES ((size_t)1 << 28)


// read a whole stream into a NUL-terminated heap buffer; NULL on failure or when too large
static char* read_stream(FILE* in, size_t* len) {
    size_t capacity = 4096;
    size_t used = 0;
    char* buffer = malloc(capacity);
    while (buffer) {
        used += fread(buffer + used, 1, capacity - used - 1, in);
        if (ferror(in) || used + 1 < capacity) {
            break;
        }
        if (capacity >= STATE_MAX_BYTES) {
            free(buffer);
            return NULL;
        }
        char* grown = realloc(buffer, capacity * 2);
        if (!grown) {
            free(buffer);
            return NULL;
        }
        buffer = grown;
        capacity *= 2;
    }
    if (!buffer || ferror(in)) {
        free(buffer);
        return NULL;
    }
    buffer[used] = '\0';
    *len = used;
    return buffer;
}


// 1-based line number of position pos in text
static int line_of(const char* text, const char* pos) {
    int line = 1;
    for (const char* c = text; c < pos && *c; c++) {
        line += (*c == '\n');
    }
    return line;
}


// does text at pos spell a non-JSON number such as NaN, Infinity or inf (any case, signed)?
static int is_nonfinite_literal(const char* pos, const char* end) {
    static const char* const words[] = {"nan", "inf"};
    if (pos < end && (*pos == '-' || *pos == '+')) {
        pos++;
    }
    for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
        size_t n = strlen(words[k]);
        if ((size_t)(end - pos) >= n) {
            int same = 1;
            for (size_t i = 0; i < n; i++) {
                same &= (tolower((unsigned char)pos[i]) == words[k][i]);
            }
            if (same) {
                return 1;
            }
        }
    }
    return 0;
}


// copy a JSON array of exactly n finite numbers into out
static gdnStatus read_vector(const cJSON* item, const char* field, int n, double* out,
                             const char* name, char* err, int err_size) {
    if (!cJSON_IsArray(item)) {
        snprintf(err, (size_t)err_size, "%s: %s: expected an array of %d numbers", name, field,
                 n);
        return GDN_ERR_PARSE;
    }
    int count = cJSON_GetArraySize(item);
    if (count != n) {
        snprintf(err, (size_t)err_size, "%s: %s: expected %d number%s, got %d", name, field, n,
                 n == 1 ? "" : "s", count);
        return GDN_ERR_ARG;
    }
    int i = 0;
    for (const cJSON* value = item->child; value; value = value->next, i++) {
        if (!cJSON_IsNumber(value)) {
            snprintf(err, (size_t)err_size, "%s: %s[%d]: not a number", name, field, i);
            return GDN_ERR_PARSE;
        }
        if (!isfinite(value->valuedouble)) {
            snprintf(err, (size_t)err_size, "%s: %s[%d]: non-finite number", name, field, i);
            return GDN_ERR_NONFINITE;
        }
        out[i] = value->valuedouble;
    }
    return GDN_OK;
}


// one top-level field of the state object
static gdnStatus read_field(const cJSON* item, const gdnModel* m, gdnData* d, const char* name,
                            char* err, int err_size) {
    const char* field = item->string;
    if (strcmp(field, "qpos") == 0) {
        return read_vector(item, field, m->nq, d->qpos, name, err, err_size);
    }
    if (strcmp(field, "qvel") == 0) {
        return read_vector(item, field, m->nv, d->qvel, name, err, err_size);
    }
    if (strcmp(field, "ctrl") == 0) {
        return read_vector(item, field, m->nu, d->ctrl, name, err, err_size);
    }
    if (strcmp(field, "act") == 0) {
        return read_vector(item, field, m->na, d->act, name, err, err_size);
    }
    if (strcmp(field, "qfrc_applied") == 0) {
        return read_vector(item, field, m->nv, d->qfrc_applied, name, err, err_size);
    }
    if (strcmp(field, "time") == 0) {
        if (!cJSON_IsNumber(item)) {
            snprintf(err, (size_t)err_size, "%s: time: not a number", name);
            return GDN_ERR_PARSE;
        }
        if (!isfinite(item->valuedouble)) {
            snprintf(err, (size_t)err_size, "%s: time: non-finite number", name);
            return GDN_ERR_NONFINITE;
        }
        d->time = item->valuedouble;
        return GDN_OK;
    }
    snprintf(err, (size_t)err_size,
             "%s: unknown field '%s' (expected qpos, qvel, ctrl, act, qfrc_applied, time)", name,
             field);
    return GDN_ERR_PARSE;
}


gdnStatus cli_parse_state(const char* text, size_t len, const char* name, const gdnModel* m,
                          gdnData* d, char* err, int err_size) {
    // parse; on failure report the line and whether a NaN/Infinity literal caused it
    const char* end_of_parse = NULL;
    cJSON* root = cJSON_ParseWithLengthOpts(text, len, &end_of_parse, 0);
    if (!root) {
        const char* at = end_of_parse ? end_of_parse : text;
        if (at < text || at > text + len) {
            at = text + len;
        }
        while (at < text + len && isspace((unsigned char)*at)) {
            at++;
        }
        if (is_nonfinite_literal(at, text + len)) {
            snprintf(err, (size_t)err_size,
                     "%s:%d: NaN and Infinity are not allowed (not valid JSON numbers)", name,
                     line_of(text, at));
        } else if (at >= text + len) {
            snprintf(err, (size_t)err_size, "%s:%d: malformed JSON: unexpected end of input",
                     name, line_of(text, at));
        } else {
            snprintf(err, (size_t)err_size, "%s:%d: malformed JSON near '%.20s'", name,
                     line_of(text, at), at);
        }
        return GDN_ERR_PARSE;
    }

    // trailing non-space text after the value is an error too
    const char* rest = end_of_parse ? end_of_parse : text + len;
    while (rest < text + len && isspace((unsigned char)*rest)) {
        rest++;
    }
    gdnStatus status = GDN_OK;
    if (rest < text + len) {
        snprintf(err, (size_t)err_size, "%s:%d: malformed JSON: extra text after the state",
                 name, line_of(text, rest));
        status = GDN_ERR_PARSE;
    } else if (!cJSON_IsObject(root)) {
        snprintf(err, (size_t)err_size, "%s: expected a JSON object {\"qpos\": [...], ...}",
                 name);
        status = GDN_ERR_PARSE;
    }

    // each field once, in file order
    for (const cJSON* item = root->child; item && status == GDN_OK; item = item->next) {
        for (const cJSON* earlier = root->child; earlier != item; earlier = earlier->next) {
            if (strcmp(earlier->string, item->string) == 0) {
                snprintf(err, (size_t)err_size, "%s: field '%s' given twice", name,
                         item->string);
                status = GDN_ERR_PARSE;
            }
        }
        if (status == GDN_OK) {
            status = read_field(item, m, d, name, err, err_size);
        }
    }
    cJSON_Delete(root);
    return status;
}


gdnStatus cli_read_state(const char* path, const gdnModel* m, gdnData* d, char* err,
                         int err_size) {
    int from_stdin = strcmp(path, "-") == 0;
    const char* name = from_stdin ? "<stdin>" : path;
    FILE* in = from_stdin ? stdin : fopen(path, "rb");
    if (!in) {
        snprintf(err, (size_t)err_size, "%s: cannot open state file: %s", name,
                 strerror(errno));
        return GDN_ERR_IO;
    }
    size_t len = 0;
    char* text = read_stream(in, &len);
    if (!from_stdin) {
        fclose(in);
    }
    if (!text) {
        snprintf(err, (size_t)err_size, "%s: cannot read state file (error or larger than %zu "
                 "bytes)", name, STATE_MAX_BYTES);
        return GDN_ERR_IO;
    }
    gdnStatus status = cli_parse_state(text, len, name, m, d, err, err_size);
    free(text);
    return status;
}
