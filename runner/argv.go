package runner

import (
	"fmt"
	"strings"
)

// MySQL programs (mysqld/mariadbd, mysql_install_db/mariadb-install-db,
// mysqladmin/mariadb-admin, the mysql/mariadb client) honour the
// option-file options --no-defaults, --defaults-file=FILE and
// --print-defaults only as their first argument; anywhere else the
// program refuses them as unknown ("mysqladmin: unknown option
// '--no-defaults'", "mysql_install_db: [ERROR] unknown variable
// 'defaults-file=...'") or reads the default option files (/etc/my.cnf,
// ~/.my.cnf) after all (MySQL bug #30994). MariaDB takes --defaults-file
// anywhere but still wants --no-defaults and --print-defaults first
// (MariaDB/server PR #553). Case defaults-file-argv-order
// (testdata/defaults-file-argv-order) gathers the failures.

// ProgramArgs returns the arguments (argv without the program) of a MySQL
// program autotune runs: "--defaults-file=" + optionFile first when
// optionFile is set, else "--no-defaults" first, then rest in order.
// Either way the program reads no option file but the one given (MySQL
// still reads its login file, ~/.mylogin.cnf: the case's
// mysql_install_db --help). rest must hold no option-file option
// (OptionFileFirst checks whole argvs).
func ProgramArgs(optionFile string, rest ...string) []string {
	first := "--no-defaults"
	if optionFile != "" {
		first = "--defaults-file=" + optionFile
	}
	return append([]string{first}, rest...)
}

// optionFileOptions are the options that change which option files a
// MySQL program reads (the case's mysql_install_db --help: "may be given
// as the first argument").
var optionFileOptions = []string{"no-defaults", "defaults-file", "defaults-extra-file", "print-defaults"}

// optionFileOption returns the option-file option arg is ("defaults-file"
// for "--defaults-file=F"; dashes and underscores alike), "" for any
// other argument.
func optionFileOption(arg string) string {
	name, ok := strings.CutPrefix(arg, "--")
	if !ok {
		return ""
	}
	name, _, _ = strings.Cut(name, "=")
	name = strings.ReplaceAll(name, "_", "-")
	for _, o := range optionFileOptions {
		if name == o {
			return o
		}
	}
	return ""
}

// OptionFileFirst checks the argument vector of a MySQL program (argv[0]
// the program, as the program itself receives it: not a wrapper's such as
// taskset or the root file system's sh -c) the way autotune runs every
// one: argv[1] is exactly --no-defaults or --defaults-file=FILE, so that
// the program reads the one option file autotune wrote or none.
// --print-defaults may follow at argv[2] (case defaults-file-argv-order,
// expected.md: `mysqld --defaults-file=… --print-defaults`). It returns
// an error naming the first violation and its index in argv: an
// option-file option at any other index (an argv built out of order, or
// from a map: its order varies from run to run), argv[1] not an
// option-file option (the program would read /etc/my.cnf and
// ~/.my.cnf), --defaults-extra-file anywhere (it merges with the default
// files), or both --no-defaults and --defaults-file.
func OptionFileFirst(argv []string) error {
	if len(argv) == 0 {
		return fmt.Errorf("empty argv")
	}
	prog := argv[0]
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		o := optionFileOption(a)
		switch {
		case o == "":
		case o == "defaults-extra-file":
			return fmt.Errorf("%s: %s at argv[%d]: it reads the default option files too; want --defaults-file=FILE at argv[1]", prog, a, i)
		case i == 1 && (a == "--no-defaults" || (strings.HasPrefix(a, "--defaults-file=") && len(a) > len("--defaults-file="))):
		case i == 1:
			return fmt.Errorf("%s: %s at argv[1] is not --no-defaults nor --defaults-file=FILE as the program reads them", prog, a)
		case i == 2 && a == "--print-defaults":
		case (o == "no-defaults" || o == "defaults-file") && optionFileOption(argv[1]) != "" && optionFileOption(argv[1]) != o:
			return fmt.Errorf("%s: both %s at argv[1] and %s at argv[%d]: give one option-file option, at argv[1]", prog, argv[1], a, i)
		default:
			return fmt.Errorf("%s: %s at argv[%d], not argv[1]: the program takes it for an unknown option or reads the default option files", prog, a, i)
		}
	}
	if len(argv) < 2 || optionFileOption(argv[1]) == "" {
		first := "missing"
		if len(argv) > 1 {
			first = argv[1]
		}
		return fmt.Errorf("%s: argv[1] is %s, not --no-defaults nor --defaults-file=FILE: the program reads the default option files (/etc/my.cnf, ~/.my.cnf)", prog, first)
	}
	return nil
}
