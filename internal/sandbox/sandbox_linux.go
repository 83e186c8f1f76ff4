package sandbox

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Available returns the Landlock ABI version this kernel offers, or an
// error saying why commands cannot be confined here.
func Available() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	switch {
	case errno == unix.ENOSYS:
		return 0, errors.New("this kernel has no Landlock (Linux 5.13 or later has it)")
	case errno == unix.EOPNOTSUPP:
		return 0, errors.New("this kernel has Landlock switched off (the lsm= boot parameter switches it on)")
	case errno != 0:
		return 0, fmt.Errorf("asking for Landlock: %w", errno)
	}
	return int(v), nil
}

// writes are the rights confined: everything that changes the file
// system. Reading and running stay free.
const writes = unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR |
	unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_MAKE_CHAR |
	unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
	unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO |
	unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK | unix.LANDLOCK_ACCESS_FS_MAKE_SYM

// fileRights are the rights a rule on a single file (not a folder) may
// grant.
const fileRights = unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE

// confine restricts the calling thread (and what it starts) to writing
// beneath writable; the thread must be locked.
var confine = func(writable []string) error {
	abi, err := Available()
	if err != nil {
		return err
	}
	handled := uint64(writes)
	if abi >= 2 {
		handled |= unix.LANDLOCK_ACCESS_FS_REFER // links and renames across folders
	}
	if abi >= 3 {
		handled |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	// Only the first field (ABI 1's): the kernel takes a shorter struct.
	attr := struct{ handledAccessFS uint64 }{handled}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("create a Landlock ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	for _, p := range writable {
		dir, err := openPath(p)
		if err != nil {
			continue // a folder that does not exist needs no rule
		}
		var st unix.Stat_t
		if err := unix.Fstat(dir, &st); err != nil {
			unix.Close(dir)
			return fmt.Errorf("%s: %w", p, err)
		}
		allowed := handled
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			allowed &= fileRights
		}
		rule := unix.LandlockPathBeneathAttr{Allowed_access: allowed, Parent_fd: int32(dir)}
		_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, fd, unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
		unix.Close(dir)
		if errno != 0 {
			return fmt.Errorf("allow writing beneath %s: %w", p, errno)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("enter the Landlock ruleset: %w", errno)
	}
	return nil
}

// openPath opens p as a path handle (it need not be readable).
func openPath(p string) (int, error) {
	return unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
}
