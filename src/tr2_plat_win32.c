/*
 * The platform seam on Windows (tr2_plat.h), with Win32 primitives only:
 * a Windows program needs no pthreads.  Descriptors are the C runtime's,
 * but every read and write goes to the file's handle, so the runtime's
 * text mode never turns "\n" into "\r\n".  Paths are UTF-8, handed to the
 * system in UTF-16.
 */
#ifdef _WIN32
#include "tr2_plat.h"
#include "tr2_sys.h"

#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <process.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------- */
/* Locks, thread keys and threads.                                     */

/* An SRWLOCK is one pointer, all zero when free: a tr2_mutex. */
_Static_assert(sizeof(SRWLOCK) == sizeof(tr2_mutex), "an SRWLOCK is a pointer");

void tr2_mutex_init(tr2_mutex *m)
{
	InitializeSRWLock((SRWLOCK *)m);
}

void tr2_mutex_lock(tr2_mutex *m)
{
	AcquireSRWLockExclusive((SRWLOCK *)m);
}

void tr2_mutex_unlock(tr2_mutex *m)
{
	ReleaseSRWLockExclusive((SRWLOCK *)m);
}

int tr2_mutex_trylock(tr2_mutex *m)
{
	return TryAcquireSRWLockExclusive((SRWLOCK *)m) ? 0 : EBUSY;
}

/* Fiber-local storage: its callback runs when a thread that set a value
 * ends, as a pthread key's destructor does. */
int tr2_key_create(tr2_key *key, void (*end)(void *))
{
	DWORD k = FlsAlloc((PFLS_CALLBACK_FUNCTION)end);

	if (k == FLS_OUT_OF_INDEXES)
		return ENOMEM;
	*key = k;
	return 0;
}

void tr2_key_set(tr2_key key, void *value)
{
	FlsSetValue((DWORD)key, value);
}

struct thread_start {
	void *(*fn)(void *);
	void *arg;
};

static unsigned __stdcall run_thread(void *p)
{
	struct thread_start start = *(struct thread_start *)p;

	tr2_sys.free(p);
	start.fn(start.arg);
	return 0;
}

/* _beginthreadex(), not CreateThread(): the thread may use the C
 * runtime.  Windows delivers no asynchronous signals to a thread. */
int tr2_thread_start(tr2_thread *t, void *(*fn)(void *), void *arg)
{
	struct thread_start *start = tr2_sys.malloc(sizeof(*start));
	uintptr_t h;

	if (!start)
		return ENOMEM;
	start->fn = fn;
	start->arg = arg;
	h = _beginthreadex(NULL, 0, run_thread, start, 0, NULL);
	if (!h) {
		tr2_sys.free(start);
		return EAGAIN;
	}
	*t = (tr2_thread)h;
	return 0;
}

void tr2_thread_join(tr2_thread t)
{
	WaitForSingleObject((HANDLE)t, INFINITE);
	CloseHandle((HANDLE)t);
}

typedef HRESULT(WINAPI *set_description_fn)(HANDLE, PCWSTR);

/* SetThreadDescription() is Windows 10's; looked up, not linked. */
void tr2_plat_name_thread(tr2_thread thread, const char *name)
{
	set_description_fn set;
	wchar_t wide[64];
	FARPROC proc = GetProcAddress(GetModuleHandleW(L"kernel32.dll"), "SetThreadDescription");

	if (!proc || !MultiByteToWideChar(CP_UTF8, 0, name, -1, wide, 64))
		return;
	memcpy(&set, &proc, sizeof(set));
	set((HANDLE)thread, wide);
}

/* No fork(): nothing to prepare a child for. */
int tr2_plat_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void))
{
	(void)prepare;
	(void)parent;
	(void)child;
	return 0;
}

static void (*exit_fn)(int abrupt);
static int exit_fn_ran;

static void run_exit_fn(int abrupt)
{
	void (*fn)(int) = __atomic_load_n(&exit_fn, __ATOMIC_ACQUIRE);

	if (fn && !__atomic_exchange_n(&exit_fn_ran, 1, __ATOMIC_ACQ_REL))
		fn(abrupt);
}

static void run_exit_fn_at_exit(void)
{
	run_exit_fn(0);
}

/* reserved is non-NULL when the process ends (its other threads are
 * stopped by then), NULL for FreeLibrary(). */
static void NTAPI exit_at_detach(PVOID module, DWORD reason, PVOID reserved)
{
	(void)module;
	if (reason == DLL_PROCESS_DETACH)
		run_exit_fn(reserved != NULL);
}

/* In the image's list of TLS callbacks, which the loader calls in order
 * at detach before the module's entry point: ahead of mingw-w64's own
 * (.CRT$XLC and .CRT$XLD), which free the thread-local storage. */
__attribute__((section(".CRT$XLB"), used))
static const PIMAGE_TLS_CALLBACK tr2_exit_callback = exit_at_detach;

void tr2_plat_atexit(void (*fn)(int abrupt))
{
	__atomic_store_n(&exit_fn, fn, __ATOMIC_RELEASE);
	atexit(run_exit_fn_at_exit);
}

/* No thread cancellation either. */
int tr2_plat_cancel_off(void)
{
	return 0;
}

void tr2_plat_cancel_back(int old)
{
	(void)old;
}

/* No SIGPIPE, and no signal a write could be interrupted by. */
void tr2_plat_hold_signals(tr2_held *old)
{
	*old = 0;
}

void tr2_plat_release_signals(const tr2_held *old)
{
	(void)old;
}

int tr2_plat_host_sigpipe_pending(const tr2_held *old)
{
	(void)old;
	return 0;
}

void tr2_plat_take_sigpipe(void)
{
}

/* WaitOnAddress() is Windows 8's; a nap serves where it is missing. */
typedef BOOL(WINAPI *wait_on_address_fn)(volatile VOID *, PVOID, SIZE_T, DWORD);
typedef VOID(WINAPI *wake_by_address_fn)(PVOID);
static wait_on_address_fn wait_on_address;
static wake_by_address_fn wake_by_address;
static int address_calls_looked_up; /* atomic */

static void look_up_address_calls(void)
{
	HMODULE sync = GetModuleHandleW(L"api-ms-win-core-synch-l1-2-0.dll");
	FARPROC w = NULL, k = NULL;

	if (!sync)
		sync = LoadLibraryW(L"api-ms-win-core-synch-l1-2-0.dll");
	if (sync) {
		w = GetProcAddress(sync, "WaitOnAddress");
		k = GetProcAddress(sync, "WakeByAddressAll");
	}
	if (w && k) {
		memcpy(&wait_on_address, &w, sizeof(w));
		memcpy(&wake_by_address, &k, sizeof(k));
	}
	__atomic_store_n(&address_calls_looked_up, 1, __ATOMIC_RELEASE);
}

void tr2_plat_wait(int *word, int value, long ms)
{
	if (!__atomic_load_n(&address_calls_looked_up, __ATOMIC_ACQUIRE))
		look_up_address_calls();
	if (wait_on_address)
		wait_on_address(word, &value, sizeof(value), (DWORD)ms);
	else if (__atomic_load_n(word, __ATOMIC_ACQUIRE) == value)
		Sleep((DWORD)(ms < 1 ? 1 : ms > 10 ? 10 : ms));
}

/* A waiter looks the calls up before it waits: none yet, none to wake. */
void tr2_plat_wake(int *word)
{
	if (__atomic_load_n(&address_calls_looked_up, __ATOMIC_ACQUIRE) && wake_by_address)
		wake_by_address(word);
}

void tr2_plat_nap_us(long us)
{
	Sleep((DWORD)((us + 999) / 1000));
}

/* ---------------------------------------------------------------- */
/* Clocks, the process, the host.                                      */

/* 100 ns ticks from 1601 to 1970. */
#define EPOCH_DIFF_100NS 116444736000000000ULL

uint64_t tr2_plat_wall_ns(void)
{
	FILETIME ft;
	uint64_t t;

	GetSystemTimePreciseAsFileTime(&ft);
	t = ((uint64_t)ft.dwHighDateTime << 32) | ft.dwLowDateTime;
	return (t - EPOCH_DIFF_100NS) * 100u;
}

int tr2_plat_monotonic_ns(uint64_t *ns)
{
	static LARGE_INTEGER freq;
	LARGE_INTEGER now;

	if (!freq.QuadPart && !QueryPerformanceFrequency(&freq))
		return -1;
	QueryPerformanceCounter(&now);
	/* seconds and the rest apart: no overflow for centuries */
	*ns = (uint64_t)(now.QuadPart / freq.QuadPart) * 1000000000u +
	      (uint64_t)(now.QuadPart % freq.QuadPart) * 1000000000u / (uint64_t)freq.QuadPart;
	return 0;
}

long tr2_plat_utc_offset(time_t sec)
{
	struct tm local;
	__time64_t t = sec;

	if (_localtime64_s(&local, &t))
		return 0;
	/* local time read as if it were UTC, minus UTC */
	return (long)(_mkgmtime64(&local) - t);
}

long tr2_plat_pid(void)
{
	return (long)GetCurrentProcessId();
}

int tr2_plat_hostname(char *buf, size_t size)
{
	wchar_t wide[256]; /* a DNS name's 63, a NetBIOS name's 15 */
	DWORD n = 256;

	if (!GetComputerNameExW(ComputerNameDnsHostname, wide, &n) &&
	    !(n = 256, GetComputerNameW(wide, &n)))
		return -1;
	return WideCharToMultiByte(CP_UTF8, 0, wide, -1, buf, (int)size, NULL, NULL) ? 0 : -1;
}

static int is_separator(char c)
{
	return c == '/' || c == '\\';
}

int tr2_plat_is_absolute(const char *path)
{
	if (is_separator(path[0]))
		return 1;
	return ((path[0] >= 'a' && path[0] <= 'z') || (path[0] >= 'A' && path[0] <= 'Z')) &&
	       path[1] == ':' && is_separator(path[2]);
}

/* ---------------------------------------------------------------- */
/* Files and named pipes.                                              */

/* A named pipe's client end: two separators, '.', a separator, "pipe"
 * in any case, a separator and a name (any mix of '/' and '\\'). */
int tr2_plat_is_pipe_name(const char *p)
{
	return is_separator(p[0]) && is_separator(p[1]) && p[2] == '.' && is_separator(p[3]) &&
	       !_strnicmp(p + 4, "pipe", 4) && is_separator(p[8]) && p[9];
}

/* path in UTF-16, '/' as '\\' (which a pipe name needs); 0, or -1 with
 * ENAMETOOLONG or EINVAL. */
static int wide_path(const char *path, wchar_t *out, int size)
{
	int i, n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, out, size);

	if (!n) {
		errno = GetLastError() == ERROR_INSUFFICIENT_BUFFER ? ENAMETOOLONG : EINVAL;
		return -1;
	}
	for (i = 0; i < n; i++)
		if (out[i] == L'/')
			out[i] = L'\\';
	return 0;
}

/* errno for the last Win32 error of a file call on path. */
static int errno_of(DWORD err, const wchar_t *path)
{
	DWORD attr;

	switch (err) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
	case ERROR_INVALID_NAME:
	case ERROR_BAD_NETPATH:
		return ENOENT;
	case ERROR_FILE_EXISTS:
	case ERROR_ALREADY_EXISTS:
		return EEXIST;
	case ERROR_CANT_RESOLVE_FILENAME: /* a loop of symbolic links */
		return ELOOP;
	case ERROR_ACCESS_DENIED:
		attr = path ? GetFileAttributesW(path) : INVALID_FILE_ATTRIBUTES;
		return attr != INVALID_FILE_ATTRIBUTES && (attr & FILE_ATTRIBUTE_DIRECTORY) ? EISDIR
											: EACCES;
	case ERROR_SHARING_VIOLATION:
	case ERROR_LOCK_VIOLATION:
		return EACCES;
	case ERROR_PIPE_BUSY:
		return EBUSY;
	case ERROR_NO_DATA:
	case ERROR_BROKEN_PIPE:
		return EPIPE;
	case ERROR_TOO_MANY_OPEN_FILES:
		return EMFILE;
	case ERROR_DISK_FULL:
	case ERROR_HANDLE_DISK_FULL:
		return ENOSPC;
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY:
		return ENOMEM;
	default:
		return EIO;
	}
}

/*
 * The access an open asks for.  Appending asks for FILE_APPEND_DATA
 * alone, so that the kernel puts every write at the end, atomically, as
 * O_APPEND does (Git for Windows opens its files so).  A pipe has no
 * such right (its bit means "create an instance" there): plain write.
 */
static DWORD access_of(int flags, int pipe)
{
	switch (flags & (_O_RDONLY | _O_WRONLY | _O_RDWR)) {
	case _O_WRONLY:
		return !pipe && (flags & _O_APPEND) ? FILE_APPEND_DATA | SYNCHRONIZE : GENERIC_WRITE;
	case _O_RDWR:
		return GENERIC_READ | GENERIC_WRITE;
	default:
		return GENERIC_READ;
	}
}

static DWORD disposition_of(int flags, int pipe)
{
	if (pipe || !(flags & _O_CREAT))
		return OPEN_EXISTING;
	if (flags & _O_EXCL)
		return CREATE_NEW;
	return flags & _O_TRUNC ? CREATE_ALWAYS : OPEN_ALWAYS;
}

/*
 * Whoever made a pipe's name first is its server, another local user
 * perhaps: it may learn who the traced process is, never act as it
 * (identification, not impersonation).
 */
static DWORD attributes_of(int pipe)
{
	return pipe ? SECURITY_SQOS_PRESENT | SECURITY_IDENTIFICATION : FILE_ATTRIBUTE_NORMAL;
}

/*
 * A pipe of ours in non-waiting mode: a write that finds no room in it
 * returns at once, and the destination waits a bounded time for room
 * (a collector that stops reading never stalls the host for longer).
 */
static void never_wait(HANDLE h)
{
	DWORD mode = PIPE_READMODE_BYTE | PIPE_NOWAIT;

	SetNamedPipeHandleState(h, &mode, NULL, NULL);
}

/*
 * Shared for reading, writing and deleting, so that children append to
 * the same file and it can be rotated or removed while open.  A pipe
 * whose instances are all busy fails with EBUSY (tr2_plat_wait_pipe()).
 */
int tr2_plat_open(const char *path, int flags, mode_t mode)
{
	wchar_t wide[MAX_PATH * 2];
	int pipe = tr2_plat_is_pipe_name(path), fd;
	SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, !(flags & _O_NOINHERIT) };
	HANDLE h;

	(void)mode;
	if (wide_path(path, wide, MAX_PATH * 2))
		return -1;
	h = CreateFileW(wide, access_of(flags, pipe),
			FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, &sa,
			disposition_of(flags, pipe), attributes_of(pipe), NULL);
	if (h == INVALID_HANDLE_VALUE) {
		errno = errno_of(GetLastError(), wide);
		return -1;
	}
	if (pipe)
		never_wait(h);
	fd = _open_osfhandle((intptr_t)h, (flags & (_O_WRONLY | _O_RDWR | _O_NOINHERIT)) | _O_BINARY);
	if (fd < 0) {
		CloseHandle(h);
		errno = EMFILE;
	}
	return fd;
}

int tr2_plat_wait_pipe(const char *path, int limit_ms)
{
	wchar_t wide[MAX_PATH * 2];

	if (!tr2_plat_is_pipe_name(path) || wide_path(path, wide, MAX_PATH * 2))
		return -1;
	return WaitNamedPipeW(wide, limit_ms > 0 ? (DWORD)limit_ms : 1) ? 0 : -1;
}

static HANDLE handle_of(int fd)
{
	return (HANDLE)_get_osfhandle(fd);
}

int tr2_plat_fstat(int fd, struct stat *st)
{
	if (handle_of(fd) == INVALID_HANDLE_VALUE) {
		errno = EBADF;
		return -1;
	}
	return fstat(fd, st);
}

/* The volume's serial number and the file's index: its identity. */
static int file_identity(int fd, BY_HANDLE_FILE_INFORMATION *bi)
{
	HANDLE h = handle_of(fd);

	return h != INVALID_HANDLE_VALUE && GetFileInformationByHandle(h, bi);
}

int tr2_plat_same_file(int a, int b)
{
	BY_HANDLE_FILE_INFORMATION ia, ib;

	return file_identity(a, &ia) && file_identity(b, &ib) &&
	       ia.dwVolumeSerialNumber == ib.dwVolumeSerialNumber &&
	       ia.nFileIndexHigh == ib.nFileIndexHigh && ia.nFileIndexLow == ib.nFileIndexLow;
}

/* The name opened for its attributes alone (shared every way, a link
 * itself rather than what it points to), compared by identity. */
int tr2_plat_is_symlink(const char *path)
{
	(void)path;
	return 0;
}

int tr2_plat_names_file(const char *path, int fd)
{
	wchar_t wide[MAX_PATH * 2];
	BY_HANDLE_FILE_INFORMATION mine, now;
	HANDLE h;
	int same;

	if (!file_identity(fd, &mine) || wide_path(path, wide, MAX_PATH * 2))
		return 0;
	h = CreateFileW(wide, FILE_READ_ATTRIBUTES,
			FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
			FILE_FLAG_OPEN_REPARSE_POINT, NULL);
	if (h == INVALID_HANDLE_VALUE)
		return 0;
	same = GetFileInformationByHandle(h, &now) &&
	       now.dwVolumeSerialNumber == mine.dwVolumeSerialNumber &&
	       now.nFileIndexHigh == mine.nFileIndexHigh && now.nFileIndexLow == mine.nFileIndexLow;
	CloseHandle(h);
	return same;
}

int tr2_plat_stat(const char *path, struct stat *st)
{
	wchar_t wide[MAX_PATH * 2];
	BY_HANDLE_FILE_INFORMATION bi;
	HANDLE h;
	DWORD type;
	int known;

	if (tr2_plat_is_pipe_name(path)) {
		errno = EINVAL;
		return -1;
	}
	if (wide_path(path, wide, MAX_PATH * 2))
		return -1;
	h = CreateFileW(wide, FILE_READ_ATTRIBUTES,
			FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
			FILE_FLAG_BACKUP_SEMANTICS, NULL);
	if (h == INVALID_HANDLE_VALUE) {
		errno = errno_of(GetLastError(), NULL);
		return -1;
	}
	type = GetFileType(h);
	known = type != FILE_TYPE_DISK || GetFileInformationByHandle(h, &bi);
	CloseHandle(h);
	if (!known) {
		errno = EIO;
		return -1;
	}
	memset(st, 0, sizeof(*st));
	st->st_nlink = 1;
	if (type == FILE_TYPE_CHAR)
		st->st_mode = S_IFCHR;
	else if (type != FILE_TYPE_DISK)
		st->st_mode = S_IFIFO;
	else if (bi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
		st->st_mode = S_IFDIR | 0755;
	else {
		st->st_mode = S_IFREG | 0644;
		st->st_size = (off_t)((uint64_t)bi.nFileSizeHigh << 32 | bi.nFileSizeLow);
	}
	return 0;
}

struct tr2_dirent {
	WIN32_FIND_DATAW data;
};

struct tr2_dir {
	HANDLE find;
	int first_pending; /* FindFirstFileW's entry, not yet given */
	struct tr2_dirent entry;
};

tr2_dir *tr2_plat_opendir(const char *path)
{
	wchar_t wide[MAX_PATH * 2];
	size_t n;
	tr2_dir *d;

	/* room for "\*" */
	if (wide_path(path, wide, MAX_PATH * 2 - 2))
		return NULL;
	n = wcslen(wide);
	if (n && wide[n - 1] != L'\\')
		wide[n++] = L'\\';
	wide[n++] = L'*';
	wide[n] = 0;
	if (!(d = tr2_sys.malloc(sizeof(*d))))
		return NULL;
	d->find = FindFirstFileW(wide, &d->entry.data);
	d->first_pending = d->find != INVALID_HANDLE_VALUE;
	/* a drive's root has no '.' nor '..': it may be empty */
	if (!d->first_pending && GetLastError() != ERROR_FILE_NOT_FOUND) {
		errno = errno_of(GetLastError(), NULL);
		tr2_sys.free(d);
		return NULL;
	}
	return d;
}

tr2_dirent *tr2_plat_readdir(tr2_dir *d)
{
	if (d->first_pending) {
		d->first_pending = 0;
		return &d->entry;
	}
	if (d->find == INVALID_HANDLE_VALUE || !FindNextFileW(d->find, &d->entry.data))
		return NULL;
	return &d->entry;
}

void tr2_plat_closedir(tr2_dir *d)
{
	if (d->find != INVALID_HANDLE_VALUE)
		FindClose(d->find);
	tr2_sys.free(d);
}

ssize_t tr2_plat_read(int fd, void *buf, size_t n)
{
	HANDLE h = handle_of(fd);
	DWORD got;

	if (h == INVALID_HANDLE_VALUE) {
		errno = EBADF;
		return -1;
	}
	if (!ReadFile(h, buf, n > 0x7fffffff ? 0x7fffffff : (DWORD)n, &got, NULL)) {
		DWORD err = GetLastError();

		if (err == ERROR_BROKEN_PIPE || err == ERROR_HANDLE_EOF)
			return 0;
		errno = errno_of(err, NULL);
		return -1;
	}
	return (ssize_t)got;
}

/* A pipe whose reader has no room: WriteFile() of a non-waiting pipe
 * handle writes nothing (EAGAIN; the caller waits a bounded time). */
/*
 * Wine appends to a file opened with the append-data right by finding
 * its end, then writing there: two writers at once, in one process or
 * two, write over each other (Windows appends atomically).  Under Wine a
 * write to a file takes a byte-range lock far past any data first, as
 * every writer of libtrace2 does, so that appends follow one another.
 */
static int under_wine; /* 0 unknown, 1 yes, 2 no; atomic */

static int is_wine(void)
{
	int v = __atomic_load_n(&under_wine, __ATOMIC_RELAXED);

	if (!v) {
		HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");

		v = ntdll && GetProcAddress(ntdll, "wine_get_version") ? 1 : 2;
		__atomic_store_n(&under_wine, v, __ATOMIC_RELAXED);
	}
	return v == 1;
}

#define APPEND_LOCK_AT 0x7ffffffffffffff0ULL
#define APPEND_LOCK_TRIES 1000 /* 1 ms naps: a holder that is gone frees it */

/* The append lock, tried for about a second; 1 if taken. */
static int lock_appends(HANDLE h, OVERLAPPED *ov)
{
	int i;

	memset(ov, 0, sizeof(*ov));
	ov->Offset = (DWORD)APPEND_LOCK_AT;
	ov->OffsetHigh = (DWORD)(APPEND_LOCK_AT >> 32);
	for (i = 0; i < APPEND_LOCK_TRIES; i++) {
		if (LockFileEx(h, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ov))
			return 1;
		if (GetLastError() != ERROR_LOCK_VIOLATION && GetLastError() != ERROR_IO_PENDING)
			return 0;
		Sleep(1);
	}
	return 0;
}

static BOOL write_file(HANDLE h, const void *buf, DWORD n, DWORD *put)
{
	OVERLAPPED ov;
	int locked = is_wine() && GetFileType(h) == FILE_TYPE_DISK && lock_appends(h, &ov);
	BOOL ok = WriteFile(h, buf, n, put, NULL);
	DWORD err = GetLastError();

	if (locked)
		UnlockFileEx(h, 0, 1, 0, &ov);
	SetLastError(err);
	return ok;
}

/*
 * The runtime's _dup2() closes the handle a number had, then puts the
 * new one under it: a thread writing to the number meanwhile (records
 * while a reopen rotates the file) would write to a closed handle, or to
 * whatever file the process opened since under the same handle value.
 * POSIX's dup2() swaps at once.  A write holds this shared from the
 * handle's look-up to its end, a dup2 holds it alone.
 */
static SRWLOCK numbers_lock = SRWLOCK_INIT;

static ssize_t write_handle(HANDLE h, const void *buf, size_t n)
{
	DWORD put;

	if (h == INVALID_HANDLE_VALUE) {
		errno = EBADF;
		return -1;
	}
	if (!write_file(h, buf, n > 0x7fffffff ? 0x7fffffff : (DWORD)n, &put)) {
		errno = errno_of(GetLastError(), NULL);
		return -1;
	}
	if (!put && n) {
		errno = EAGAIN;
		return -1;
	}
	return (ssize_t)put;
}

/* Shared, within about a second: a dup2 holds it for microseconds, but
 * a thread stopped while holding it (the process ending under it) must
 * not keep the end of the trace waiting for good. */
static int lock_numbers_shared(void)
{
	int tries;

	for (tries = 0; tries < 1000; tries++) {
		if (TryAcquireSRWLockShared(&numbers_lock))
			return 1;
		Sleep(tries < 10 ? 0 : 1);
	}
	return 0;
}

ssize_t tr2_plat_write(int fd, const void *buf, size_t n)
{
	ssize_t w;

	if (!lock_numbers_shared()) {
		errno = EIO;
		return -1;
	}
	w = write_handle(handle_of(fd), buf, n);
	ReleaseSRWLockShared(&numbers_lock);
	return w;
}

/* Writes never raise a signal here, and a pipe handle of ours never
 * waits for room (tr2_plat_set_blocking()): the flags are kept. */
ssize_t tr2_plat_write_flags(int fd, const void *buf, size_t n, int flags)
{
	(void)flags;
	return tr2_plat_write(fd, buf, n);
}

int tr2_plat_close(int fd)
{
	return _close(fd);
}

/*
 * A file is always ready.  A pipe is ready to read when it has bytes
 * (PeekNamedPipe), and to write after a nap: its room cannot be asked
 * for, a write that finds none fails with EAGAIN and is tried again.
 */
static int ready(struct pollfd *p)
{
	HANDLE h = handle_of(p->fd);
	DWORD avail = 0;

	p->revents = 0;
	if (h == INVALID_HANDLE_VALUE)
		p->revents = POLLERR;
	else if (GetFileType(h) != FILE_TYPE_PIPE)
		p->revents = p->events & (POLLIN | POLLOUT);
	else if ((p->events & POLLIN) && !PeekNamedPipe(h, NULL, 0, NULL, &avail, NULL))
		p->revents = POLLHUP;
	else if ((p->events & POLLIN) && avail)
		p->revents = POLLIN;
	return p->revents != 0;
}

int tr2_plat_poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
	ULONGLONG until = GetTickCount64() + (ULONGLONG)(timeout_ms > 0 ? timeout_ms : 0);
	int waited = 0;

	for (;;) {
		int count = 0;
		nfds_t i;

		for (i = 0; i < n; i++)
			count += ready(&fds[i]);
		for (i = 0; !count && waited && i < n; i++)
			if (fds[i].events & POLLOUT) {
				fds[i].revents = POLLOUT;
				count++;
			}
		if (count || GetTickCount64() >= until)
			return count;
		Sleep(1);
		waited = 1;
	}
}

/* A file's writes never wait on a reader. */
int tr2_plat_set_blocking(int fd)
{
	(void)fd;
	return 0;
}

/* The descriptor duplicated onto to, not inherited by children (the
 * runtime's _dup2() makes the new handle inheritable). */
int tr2_plat_dup_cloexec(int fd, int to)
{
	int rc;

	AcquireSRWLockExclusive(&numbers_lock);
	rc = _dup2(fd, to);
	ReleaseSRWLockExclusive(&numbers_lock);
	if (rc)
		return -1;
	SetHandleInformation(handle_of(to), HANDLE_FLAG_INHERIT, 0);
	return to;
}

/* No AF_UNIX destinations here (TR2_HAVE_AF_UNIX is 0). */
int tr2_plat_socket(int domain, int type, int protocol)
{
	(void)domain;
	(void)type;
	(void)protocol;
	errno = ENOSYS;
	return -1;
}

int tr2_plat_connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	(void)fd;
	(void)sa;
	(void)len;
	errno = ENOSYS;
	return -1;
}

ssize_t tr2_plat_send(int fd, const void *buf, size_t n, int flags)
{
	(void)fd;
	(void)buf;
	(void)n;
	(void)flags;
	errno = ENOSYS;
	return -1;
}

int tr2_plat_connect_unix(const char *path, int type, int limit_ms, int *err)
{
	(void)path;
	(void)type;
	(void)limit_ms;
	*err = ENOSYS;
	return -1;
}

int tr2_plat_is_datagram(int fd)
{
	(void)fd;
	return 0;
}

/* ---------------------------------------------------------------- */
/* Child processes.                                                    */

/* Whether arg needs quotes on a command line: empty, or a blank in it. */
static int needs_quotes(const char *arg)
{
	return !*arg || strpbrk(arg, " \t\n\v\"");
}

/*
 * One argument as the C runtime's parser reads it back: in quotes if
 * needed, a '"' after backslashes with those doubled and itself
 * escaped, backslashes before the closing quote doubled.  The bytes
 * appended at *p, at most end; -1 if they do not fit.
 */
static int quote_arg(char **p, char *end, const char *arg)
{
	int quote = needs_quotes(arg);
	size_t slashes = 0;
	char *q = *p;

	if (quote && q < end)
		*q++ = '"';
	for (; *arg && q < end; arg++) {
		if (*arg == '\\') {
			slashes++;
		} else {
			if (*arg == '"')
				for (slashes++; slashes && q < end; slashes--)
					*q++ = '\\';
			slashes = 0;
		}
		*q++ = *arg;
	}
	for (; quote && slashes && q < end; slashes--)
		*q++ = '\\';
	if (quote && q < end)
		*q++ = '"';
	if (q >= end)
		return -1;
	*p = q;
	return 0;
}

#define CMDLINE_MAX 32767

/* The command line of argv, in UTF-16 into wide; 0, or an errno. */
static int command_line(const char *const *argv, wchar_t *wide)
{
	char *line = tr2_sys.malloc(CMDLINE_MAX), *p = line, *end = line + CMDLINE_MAX - 1;
	int i, err = 0;

	if (!line)
		return ENOMEM;
	for (i = 0; argv[i] && !err; i++) {
		if (i && p < end)
			*p++ = ' ';
		err = quote_arg(&p, end, argv[i]) ? E2BIG : 0;
	}
	*p = '\0';
	if (!err && !MultiByteToWideChar(CP_UTF8, 0, line, -1, wide, CMDLINE_MAX))
		err = E2BIG;
	tr2_sys.free(line);
	return err;
}

/* Children started and not yet waited for, by pid: a pid names a
 * process to wait for only while its handle is open. */
#define CHILDREN_MAX 64
static struct child {
	DWORD pid;
	HANDLE process;
} children[CHILDREN_MAX];
static tr2_mutex children_lock = TR2_MUTEX_INIT;

static int keep_child(DWORD pid, HANDLE process)
{
	int i, kept = 0;

	tr2_mutex_lock(&children_lock);
	for (i = 0; i < CHILDREN_MAX && !kept; i++)
		if (!children[i].process) {
			children[i].pid = pid;
			children[i].process = process;
			kept = 1;
		}
	tr2_mutex_unlock(&children_lock);
	return kept;
}

static HANDLE take_child(DWORD pid)
{
	HANDLE process = NULL;
	int i;

	tr2_mutex_lock(&children_lock);
	for (i = 0; i < CHILDREN_MAX && !process; i++)
		if (children[i].process && children[i].pid == pid) {
			process = children[i].process;
			children[i].process = NULL;
		}
	tr2_mutex_unlock(&children_lock);
	return process;
}

/* CreateProcess() looks argv[0] up in PATH as a shell would (".exe"
 * added), with this process's environment and inheritable handles. */
int tr2_plat_spawn(const char *const *argv, pid_t *pid)
{
	wchar_t *line = tr2_sys.malloc(CMDLINE_MAX * sizeof(wchar_t));
	STARTUPINFOW si;
	PROCESS_INFORMATION pi;
	int err;

	if (!line)
		return ENOMEM;
	err = command_line(argv, line);
	memset(&si, 0, sizeof(si));
	si.cb = sizeof(si);
	if (!err && !CreateProcessW(NULL, line, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi))
		err = errno_of(GetLastError(), NULL);
	tr2_sys.free(line);
	if (err)
		return err;
	CloseHandle(pi.hThread);
	*pid = (pid_t)pi.dwProcessId;
	if (!keep_child(pi.dwProcessId, pi.hProcess)) {
		CloseHandle(pi.hProcess);
		return EAGAIN;
	}
	return 0;
}

/* An exit code of 0xC0000005 (an access violation, say) is Git's 128 +
 * SIGSEGV on Linux, but Windows gives no signal number: the exit code
 * as the runtime reports it, its low byte. */
int tr2_plat_wait_child(pid_t pid)
{
	HANDLE process = take_child((DWORD)pid);
	DWORD code;

	if (!process) {
		errno = ECHILD;
		return -1;
	}
	WaitForSingleObject(process, INFINITE);
	if (!GetExitCodeProcess(process, &code)) {
		CloseHandle(process);
		errno = ECHILD;
		return -1;
	}
	CloseHandle(process);
	return (int)(code & 0xff);
}

/* ---------------------------------------------------------------- */
/* The program's read-only data.                                       */

static const char *rdata_start, *rdata_end;

/* The main executable's first section that is read-only data (.rdata,
 * where string literals are): mapped for the process's life. */
void tr2_plat_find_immutable(void)
{
	const char *base = (const char *)GetModuleHandleW(NULL);
	const IMAGE_DOS_HEADER *dos = (const IMAGE_DOS_HEADER *)base;
	const IMAGE_NT_HEADERS *nt;
	const IMAGE_SECTION_HEADER *sec;
	WORD i;

	if (!base || dos->e_magic != IMAGE_DOS_SIGNATURE)
		return;
	nt = (const IMAGE_NT_HEADERS *)(base + dos->e_lfanew);
	if (nt->Signature != IMAGE_NT_SIGNATURE)
		return;
	sec = IMAGE_FIRST_SECTION(nt);
	for (i = 0; i < nt->FileHeader.NumberOfSections; i++, sec++) {
		DWORD c = sec->Characteristics;

		if ((c & IMAGE_SCN_MEM_READ) && !(c & (IMAGE_SCN_MEM_WRITE | IMAGE_SCN_MEM_EXECUTE)) &&
		    (c & IMAGE_SCN_CNT_INITIALIZED_DATA)) {
			rdata_start = base + sec->VirtualAddress;
			rdata_end = rdata_start + sec->Misc.VirtualSize;
			return;
		}
	}
}

int tr2_plat_immutable(const void *p, size_t len)
{
	const char *c = p;

	return rdata_start && c >= rdata_start && c < rdata_end &&
	       len <= (size_t)(rdata_end - c);
}
#endif
