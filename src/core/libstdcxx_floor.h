#ifndef DLPACK_NODE_CORE_LIBSTDCXX_FLOOR_H_
#define DLPACK_NODE_CORE_LIBSTDCXX_FLOOR_H_

// The prebuilt binaries promise libstdc++ from GCC 11 (GLIBCXX_3.4.29; the table
// is lib/floors.js, README "Install"), and are built with GCC 12. GCC 12's
// libstdc++ exports std::condition_variable::wait(unique_lock<mutex>&) twice: the
// default GLIBCXX_3.4.30 version, new in GCC 12 only because GCC 11 had made the
// function noexcept and 12 took that back (a pthread_cancel unwinding through a
// noexcept wait calls std::terminate), and the GLIBCXX_3.4.11 version every
// libstdc++ since GCC 4.4 has. Linking to the default would make every user need
// GCC 12's libstdc++ (not RHEL 9's or Amazon Linux 2023's) for that one symbol, so
// each file that waits on a condition_variable includes this header and binds
// the call to GLIBCXX_3.4.11. The two differ only under pthread_cancel, which
// nothing here uses. Linking libstdc++ statically (-static-libstdc++) would lift
// the whole GLIBCXX floor, but adds a second C++ runtime to every process and
// several hundred KiB to each binary (the package's limit is 1.5 MB for two).
// CI (.ci/run "Package") reads every shipped binary with objdump -T and fails
// one that needs a version above lib/floors.js.
#if defined(__GLIBCXX__) && defined(__ELF__)
__asm__(
    ".symver _ZNSt18condition_variable4waitERSt11unique_lockISt5mutexE,"
    "_ZNSt18condition_variable4waitERSt11unique_lockISt5mutexE@GLIBCXX_3.4.11");
#endif

#endif  // DLPACK_NODE_CORE_LIBSTDCXX_FLOOR_H_
