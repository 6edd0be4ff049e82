/*
 * core/util/elf.c - refusing a file before dlopen() can run any of its code
 * (its ELF constructors and those of the libraries it links): it must be an ELF
 * shared object of this process's class, byte order and machine, and must
 * export the entry symbol in its dynamic symbol table (defined, global or
 * weak, default or protected visibility, a data object).
 *
 * The file may be anything: it is read with pread() and every offset and
 * size is checked against the file before use. The dynamic symbol table is
 * found through the section headers (SHT_DYNSYM and its string table), which
 * every linker writes; a file stripped of its section headers is refused
 * with that reason.
 */
#include "util/util.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ELF_TABLE_MAX (64u << 20) /* bytes of a table read */

typedef struct elf_file {
	int fd;
	off_t size;
	const char *stage; /* where a refusal belongs: "open" or "symbol" */
	char *why;
	size_t why_size;
} elf_file;

static int elf_refuse(elf_file *f, const char *stage, const char *fmt, ...)
	WEFT_PRINTF(3, 4);

static int elf_refuse(elf_file *f, const char *stage, const char *fmt, ...)
{
	va_list ap;

	f->stage = stage;
	va_start(ap, fmt);
	vsnprintf(f->why, f->why_size, fmt, ap);
	va_end(ap);
	return -1;
}

/* bytes at off, all inside the file. */
static int elf_read(elf_file *f, void *buf, uint64_t off, uint64_t bytes)
{
	if (off > (uint64_t)f->size || bytes > (uint64_t)f->size - off)
		return elf_refuse(f, "open",
				  "invalid ELF file: a table lies past its end "
				  "(truncated?)");
	if (pread(f->fd, buf, bytes, (off_t)off) != (ssize_t)bytes)
		return elf_refuse(f, "open", "cannot read it: %s",
				  strerror(errno));
	return 0;
}

/* A table of the file in new memory (*out NULL on refusal). */
static int elf_table(elf_file *f, uint64_t off, uint64_t bytes, void **out)
{
	*out = NULL;
	if (bytes > ELF_TABLE_MAX)
		return elf_refuse(f, "open",
				  "invalid ELF file: a table of %llu bytes",
				  (unsigned long long)bytes);
	*out = malloc(bytes ? bytes : 1);
	if (!*out)
		return elf_refuse(f, "open", "out of memory reading it");
	if (elf_read(f, *out, off, bytes) == 0)
		return 0;
	free(*out);
	*out = NULL;
	return -1;
}

/* The ELF header of the object holding this code: what this process is. */
static const ElfW(Ehdr) * elf_self(void)
{
	Dl_info info;

	if (!dladdr((void *)elf_self, &info) || !info.dli_fbase)
		return NULL;
	return info.dli_fbase;
}

static const char *elf_machine_name(unsigned m)
{
	switch (m) {
	case EM_X86_64: return "x86-64";
	case EM_386: return "i386";
	case EM_AARCH64: return "AArch64";
	case EM_ARM: return "ARM";
	case EM_PPC64: return "PowerPC 64";
	case EM_RISCV: return "RISC-V";
	case EM_S390: return "s390";
	}
	return "another machine";
}

/* Identification and header: an ELF shared object this process can load. */
static int elf_header(elf_file *f, ElfW(Ehdr) * eh)
{
	const ElfW(Ehdr) *self = elf_self();

	if (f->size < (off_t)sizeof *eh ||
	    elf_read(f, eh, 0, sizeof *eh) != 0 ||
	    memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		return elf_refuse(f, "open",
				  "invalid ELF header: not an ELF file");
	if (!self)
		return 0; /* nothing to compare with: dlopen() will say */
	if (eh->e_ident[EI_CLASS] != self->e_ident[EI_CLASS])
		return elf_refuse(
			f, "open", "it is a %s ELF object; this weft is %s",
			eh->e_ident[EI_CLASS] == ELFCLASS32 ? "32-bit"
							    : "64-bit",
			self->e_ident[EI_CLASS] == ELFCLASS32 ? "32-bit"
							      : "64-bit");
	if (eh->e_ident[EI_DATA] != self->e_ident[EI_DATA])
		return elf_refuse(f, "open",
				  "it is an ELF object of the other byte "
				  "order");
	if (eh->e_type != ET_DYN)
		return elf_refuse(f, "open",
				  "it is an ELF %s, not a shared object (a "
				  "plugin is linked with -shared)",
				  eh->e_type == ET_EXEC ? "executable"
				  : eh->e_type == ET_REL
					  ? "object file (.o)"
					  : "file of another type");
	if (eh->e_machine != self->e_machine)
		return elf_refuse(f, "open",
				  "it is built for %s (ELF machine %u); this "
				  "weft runs on %s",
				  elf_machine_name(eh->e_machine),
				  eh->e_machine,
				  elf_machine_name(self->e_machine));
	return 0;
}

/* The dynamic symbol table's section header and its string table's. */
static int elf_dynsym(elf_file *f, const ElfW(Ehdr) * eh, ElfW(Shdr) * sym,
		      ElfW(Shdr) * str)
{
	ElfW(Shdr) * sh;
	int found = 0;

	if (eh->e_shnum == 0 || eh->e_shentsize != sizeof *sh)
		return elf_refuse(f, "symbol",
				  "it has no section headers to find its "
				  "dynamic symbols in (stripped with sstrip?)");
	if (elf_table(f, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof *sh,
		      (void **)&sh))
		return -1;
	for (unsigned i = 0; i < eh->e_shnum && !found; i++) {
		if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum)
			continue;
		*sym = sh[i];
		*str = sh[sh[i].sh_link];
		found = 1;
	}
	free(sh);
	if (!found)
		return elf_refuse(f, "symbol",
				  "it has no dynamic symbol table: it exports "
				  "nothing");
	return 0;
}

/* Why the symbol found is not an entry, or NULL when it is one (st_info
 * and st_other have the same layout in both classes). */
static const char *elf_sym_wrong(const ElfW(Sym) * s)
{
	unsigned bind = ELF64_ST_BIND(s->st_info);
	unsigned type = ELF64_ST_TYPE(s->st_info);
	unsigned vis = ELF64_ST_VISIBILITY(s->st_other);

	if (s->st_shndx == SHN_UNDEF)
		return "is used but not defined there";
	if ((bind != STB_GLOBAL && bind != STB_WEAK &&
	     bind != STB_GNU_UNIQUE) ||
	    (vis != STV_DEFAULT && vis != STV_PROTECTED))
		return "is not exported (hidden or local)";
	if (type == STT_FUNC || type == STT_GNU_IFUNC)
		return "is a function, not the table (a data symbol)";
	return NULL;
}

/* Look symbol up in the dynamic symbol table. */
static int elf_find(elf_file *f, const ElfW(Shdr) * symsh,
		    const ElfW(Shdr) * strsh, const char *symbol)
{
	size_t len = strlen(symbol), n = symsh->sh_size / sizeof(ElfW(Sym));
	const char *wrong = "is not exported";
	ElfW(Sym) * syms;
	char *strs;
	int rc = -1;

	if (elf_table(f, strsh->sh_offset, strsh->sh_size, (void **)&strs))
		return -1;
	if (elf_table(f, symsh->sh_offset, n * sizeof *syms, (void **)&syms)) {
		free(strs);
		return -1;
	}
	for (size_t i = 0; i < n && rc != 0; i++) {
		uint64_t at = syms[i].st_name;
		if (at >= strsh->sh_size || strsh->sh_size - at <= len ||
		    memcmp(strs + at, symbol, len + 1) != 0)
			continue;
		wrong = elf_sym_wrong(&syms[i]);
		rc = wrong ? -1 : 0;
	}
	free(syms);
	free(strs);
	if (rc != 0)
		elf_refuse(f, "symbol", "%s %s", symbol, wrong);
	return rc;
}

/* The checks on an open file. */
static int elf_check_fd(elf_file *f, const char *symbol)
{
	ElfW(Shdr) symsh = { 0 }, strsh = { 0 };
	ElfW(Ehdr) eh;
	struct stat sb;

	if (fstat(f->fd, &sb) != 0 || !S_ISREG(sb.st_mode))
		return elf_refuse(f, "open", "not a regular file");
	f->size = sb.st_size;
	if (elf_header(f, &eh) || elf_dynsym(f, &eh, &symsh, &strsh))
		return -1;
	return elf_find(f, &symsh, &strsh, symbol);
}

int weft__elf_check(const char *path, const char *symbol, const char **stage,
		    char *why, size_t why_size)
{
	elf_file f = { .why = why, .why_size = why_size };
	int rc;

	f.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f.fd < 0) {
		rc = elf_refuse(&f, "open",
				"cannot open shared object file: %s",
				strerror(errno));
	} else {
		rc = elf_check_fd(&f, symbol);
		close(f.fd);
	}
	*stage = rc == 0 ? NULL : f.stage;
	return rc;
}
