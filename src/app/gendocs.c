/* gpuimg: the docs made from the option table (options.h), for the build and the tests:
 *   gendocs options   the man page's OPTIONS entries (roff)
 *   gendocs env       the man page's ENVIRONMENT entries (roff)
 *   gendocs readme    README's table of options (Markdown) */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include "lib/options.h"

int main(int argc, char **argv)
{
    const char *what = argc == 2 ? argv[1] : "";
    if (!strcmp(what, "options"))
        options_man(stdout);
    else if (!strcmp(what, "env"))
        options_man_env(stdout);
    else if (!strcmp(what, "readme"))
        options_markdown(stdout);
    else {
        fprintf(stderr, "usage: gendocs options|env|readme\n");
        return 2;
    }
    return ferror(stdout) ? 1 : 0;
}
