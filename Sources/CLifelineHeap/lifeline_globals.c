#define _GNU_SOURCE
#include "lifeline_heap.h"

#if defined(__linux__)
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct loaded_image_visit {
    void (*visit)(const lifeline_heap_loaded_image *image, void *context);
    void *context;
};

static int visit_loaded_image(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct loaded_image_visit *state = data;
    lifeline_heap_loaded_image image = { info->dlpi_name ? info->dlpi_name : "", info->dlpi_addr, {0}, {0}, 0 };
    for (ElfW(Half) index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_LOAD || !(header->p_flags & PF_W)) continue;
        if (image.writable_count == LIFELINE_HEAP_WRITABLE_SEGMENTS) break;
        image.writable_start[image.writable_count] = info->dlpi_addr + header->p_vaddr;
        image.writable_end[image.writable_count] = info->dlpi_addr + header->p_vaddr + header->p_memsz;
        image.writable_count++;
    }
    state->visit(&image, state->context);
    return 0;
}

void lifeline_heap_enumerate_loaded_images(void (*visit)(const lifeline_heap_loaded_image *image, void *context), void *context) {
    struct loaded_image_visit state = { visit, context };
    dl_iterate_phdr(visit_loaded_image, &state);
}

/// Reads `length` bytes at `offset` of `file` into a new buffer, or returns NULL.
static void *read_range(int file, uint64_t offset, uint64_t length, uint64_t file_size) {
    if (length == 0 || offset > file_size || length > file_size - offset || length > ((uint64_t)1 << 31)) return NULL;
    char *buffer = malloc((size_t)length);
    if (!buffer) return NULL;
    size_t done = 0;
    while (done < length) {
        ssize_t count = pread(file, buffer + done, (size_t)(length - done), (off_t)(offset + done));
        if (count <= 0) {
            free(buffer);
            return NULL;
        }
        done += (size_t)count;
    }
    return buffer;
}

/// Whether the `length` bytes at `name` spell a Swift variable's storage: `$s…vp` or `$s…vpZ`.
static int is_variable_storage(const char *name, size_t length) {
    if (length < 5 || name[0] != '$' || name[1] != 's') return 0;
    if (name[length - 1] == 'Z') length--;
    return name[length - 2] == 'v' && name[length - 1] == 'p';
}

int lifeline_heap_enumerate_variable_symbols(
    const char *path, void (*visit)(const char *name, uint64_t value, uint64_t size, void *context), void *context
) {
    int file = open(path, O_RDONLY | O_CLOEXEC);
    if (file < 0) return 0;
    struct stat status;
    int found = 0;
    Elf64_Ehdr header;
    Elf64_Shdr *sections = NULL;
    Elf64_Sym *symbols = NULL;
    char *names = NULL;
    if (fstat(file, &status) != 0 || !S_ISREG(status.st_mode) || status.st_size < (off_t)sizeof header) goto done;
    uint64_t file_size = (uint64_t)status.st_size;
    if (pread(file, &header, sizeof header, 0) != (ssize_t)sizeof header) goto done;
    if (memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64
        || header.e_ident[EI_DATA] != ELFDATA2LSB || header.e_shentsize != sizeof(Elf64_Shdr) || header.e_shnum == 0) {
        goto done;
    }
    sections = read_range(file, header.e_shoff, (uint64_t)header.e_shnum * sizeof(Elf64_Shdr), file_size);
    if (!sections) goto done;
    for (Elf64_Half index = 0; index < header.e_shnum && !found; index++) {
        const Elf64_Shdr *table = &sections[index];
        if (table->sh_type != SHT_SYMTAB || table->sh_entsize != sizeof(Elf64_Sym) || table->sh_link >= header.e_shnum) continue;
        const Elf64_Shdr *strings = &sections[table->sh_link];
        symbols = read_range(file, table->sh_offset, table->sh_size, file_size);
        names = read_range(file, strings->sh_offset, strings->sh_size, file_size);
        if (!symbols || !names) goto done;
        found = 1;
        uint64_t count = table->sh_size / sizeof(Elf64_Sym);
        for (uint64_t position = 0; position < count; position++) {
            const Elf64_Sym *symbol = &symbols[position];
            if (ELF64_ST_TYPE(symbol->st_info) != STT_OBJECT || symbol->st_shndx == SHN_UNDEF || symbol->st_name >= strings->sh_size) continue;
            const char *name = names + symbol->st_name;
            size_t length = strnlen(name, (size_t)(strings->sh_size - symbol->st_name));
            if (length == (size_t)(strings->sh_size - symbol->st_name) || !is_variable_storage(name, length)) continue;
            visit(name, symbol->st_value, symbol->st_size, context);
        }
    }
done:
    free(symbols);
    free(names);
    free(sections);
    close(file);
    return found;
}
#else
void lifeline_heap_enumerate_loaded_images(void (*visit)(const lifeline_heap_loaded_image *image, void *context), void *context) {
    (void)visit;
    (void)context;
}

int lifeline_heap_enumerate_variable_symbols(
    const char *path, void (*visit)(const char *name, uint64_t value, uint64_t size, void *context), void *context
) {
    (void)path;
    (void)visit;
    (void)context;
    return 0;
}
#endif
