// SPDX-License-Identifier: Apache-2.0
// MuJoCo 2.2.2 model compiled from MJCF text (through a temporary file under /tmp).
#define _POSIX_C_SOURCE 200809L
#include "oracle/mj_from_string.h"

#include <stdio.h>
#include <stdlib.h>


// xml -> /tmp/gdn_oracle_XXXXXX -> mj_loadXML -> remove the file
mjModel* gdn_oracle_mj_from_string(const char* xml) {
    char path[] = "/tmp/gdn_oracle_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        fprintf(stderr, "MuJoCo: no temporary file\n");
        return NULL;
    }
    FILE* f = fdopen(fd, "w");
    if (!f) {
        remove(path);
        fprintf(stderr, "MuJoCo: no temporary file\n");
        return NULL;
    }
    fputs(xml, f);
    fclose(f);
    char err[1000] = "";
    mjModel* m = mj_loadXML(path, NULL, err, sizeof(err));
    remove(path);
    if (!m) {
        fprintf(stderr, "MuJoCo: %s\n", err);
    }
    return m;
}
