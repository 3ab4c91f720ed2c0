// SPDX-License-Identifier: Apache-2.0
// MJCF text through a temporary file under /tmp: MuJoCo 2.2.2's model of it, or just the file.
#define _POSIX_C_SOURCE 200809L
#include "oracle/mj_from_string.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// xml -> a fresh /tmp/gdn_oracle_XXXXXX
int gdn_oracle_tmp_xml(const char* xml, char path[GDN_ORACLE_TMP_PATH]) {
    strcpy(path, "/tmp/gdn_oracle_XXXXXX");
    int fd = mkstemp(path);
    FILE* f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0) {
            remove(path);
        }
        fprintf(stderr, "no temporary file\n");
        return 1;
    }
    fputs(xml, f);
    fclose(f);
    return 0;
}

// xml -> temporary file -> mj_loadXML -> remove the file
mjModel* gdn_oracle_mj_from_string(const char* xml) {
    char path[GDN_ORACLE_TMP_PATH];
    if (gdn_oracle_tmp_xml(xml, path)) {
        return NULL;
    }
    char err[1000] = "";
    mjModel* m = mj_loadXML(path, NULL, err, sizeof(err));
    remove(path);
    if (!m) {
        fprintf(stderr, "MuJoCo: %s\n", err);
    }
    return m;
}
