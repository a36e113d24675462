// demangle.cc — C++ symbol names for the tool's call sites: libstdc++'s
// demangler (abi::__cxa_demangle) behind one C function.  glibc has no
// demangler and libdw hands out the names as the linker sees them
// ("_ZN9LAMMPS_NS9CommBrick12reverse_commEv"); this file is the only C++ of
// the tool, and only the tool links it (never the runtime).
#include <cstdlib>
#include <cxxabi.h>

// (declared in symbols.h, which is C)

extern "C" char *sym_demangle(const char *name)
{
    if (!name || name[0] != '_' || name[1] != 'Z') return nullptr;
    int status = 0;
    char *s = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    if (status != 0) {
        std::free(s);
        return nullptr;
    }
    return s;
}
