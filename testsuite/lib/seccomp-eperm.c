/* seccomp-eperm -- run a command with chosen system calls failing with EPERM.

   Container runtimes and sandboxes often install a seccomp profile that
   answers system calls they do not know or do not trust with EPERM
   instead of ENOSYS.  Programs must then cope with a call that exists in
   the kernel but is refused.  This helper emulates such a profile so that
   the test suite can exercise those paths without a container: it
   installs a classic BPF seccomp filter, built by hand so as to depend on
   nothing beyond libc and the kernel headers, and then executes the
   command, whose children inherit the filter.

   Usage: seccomp-eperm [--calls LIST] [--ioctls LIST] -- CMD [ARG]...

   Exit status: 125 for a usage error or when the filter cannot be
   installed, 126 when CMD cannot be executed, 127 when it is not found,
   77 (the Automake code for a skipped test) on an architecture that this
   program does not know, and otherwise that of CMD.

   Build: gcc -std=c99 -O2 -Wall -Wextra -o seccomp-eperm seccomp-eperm.c  */

/* For getopt_long and execvp even with -std=c99.  */
#define _GNU_SOURCE 1

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <linux/audit.h>
#include <linux/btrfs.h>
#include <linux/filter.h>
#include <linux/ioctl.h>
#include <linux/seccomp.h>
#include <linux/types.h>

/* Exit statuses, following env(1) and the shell.  */
enum
{
  EXIT_CANCELED = 125,
  EXIT_CANNOT_INVOKE = 126,
  EXIT_ENOENT = 127,
  EXIT_UNSUPPORTED = 77
};

/* The audit architecture of the system calls that this program, and the
   native programs it runs, make.  Only the architectures whose system call
   numbers the table below knows are supported; on others, the program
   builds but reports at run time that it cannot help, so that a test can
   be skipped rather than failed.  */
#if defined __x86_64__ && !defined __ILP32__
# define NATIVE_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined __aarch64__ && !defined __ILP32__ && defined __AARCH64EL__
# define NATIVE_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/* Old kernel headers lack the numbers of recent system calls.  Supply
   them for the supported architectures, where they are fixed by the
   kernel's ABI; statmount, listmount and openat2 come from the numbering
   shared by all architectures since Linux 5.1.  */
#if defined __x86_64__
# ifndef __NR_statx
#  define __NR_statx 332
# endif
# ifndef __NR_name_to_handle_at
#  define __NR_name_to_handle_at 303
# endif
# ifndef __NR_open_by_handle_at
#  define __NR_open_by_handle_at 304
# endif
#elif defined __aarch64__
# ifndef __NR_statx
#  define __NR_statx 291
# endif
# ifndef __NR_name_to_handle_at
#  define __NR_name_to_handle_at 264
# endif
# ifndef __NR_open_by_handle_at
#  define __NR_open_by_handle_at 265
# endif
#endif
#if defined __x86_64__ || defined __aarch64__
# ifndef __NR_openat2
#  define __NR_openat2 437
# endif
# ifndef __NR_statmount
#  define __NR_statmount 457
# endif
# ifndef __NR_listmount
#  define __NR_listmount 458
# endif
#endif

/* x32 system calls arrive with AUDIT_ARCH_X86_64 too, distinguished only
   by this bit in the number.  */
#define X32_SYSCALL_BIT 0x40000000U

#ifndef SECCOMP_RET_KILL_PROCESS
# define SECCOMP_RET_KILL_PROCESS 0x80000000U
#endif

/* Linux 6.5 and later define these two in <linux/fs.h>; spell them out
   with private structure names so as to build with older headers and not
   to clash with newer ones.  */
struct seccomp_eperm_fsuuid2
{
  __u8 len;
  __u8 uuid[16];
};

struct seccomp_eperm_fs_sysfs_path
{
  __u8 len;
  __u8 name[128];
};

#ifndef FS_IOC_GETFSUUID
# define FS_IOC_GETFSUUID _IOR (0x15, 0, struct seccomp_eperm_fsuuid2)
#endif
#ifndef FS_IOC_GETFSSYSFSPATH
# define FS_IOC_GETFSSYSFSPATH \
  _IOR (0x15, 1, struct seccomp_eperm_fs_sysfs_path)
#endif

/* A name that the command line may give, and the number it stands for.  */
struct name_number
{
  const char *name;
  __u32 number;
};

/* The system calls that --calls knows.  Each is guarded, so that the
   program still builds on architectures that lack some of them.  */
static const struct name_number call_table[] =
{
#ifdef __NR_statx
  { "statx", __NR_statx },
#endif
#ifdef __NR_name_to_handle_at
  { "name_to_handle_at", __NR_name_to_handle_at },
#endif
#ifdef __NR_open_by_handle_at
  { "open_by_handle_at", __NR_open_by_handle_at },
#endif
#ifdef __NR_ioctl
  { "ioctl", __NR_ioctl },
#endif
#ifdef __NR_fstatfs
  { "fstatfs", __NR_fstatfs },
#endif
#ifdef __NR_statfs
  { "statfs", __NR_statfs },
#endif
#ifdef __NR_newfstatat
  { "newfstatat", __NR_newfstatat },
#endif
#ifdef __NR_stat
  { "stat", __NR_stat },
#endif
#ifdef __NR_lstat
  { "lstat", __NR_lstat },
#endif
#ifdef __NR_fstat
  { "fstat", __NR_fstat },
#endif
#ifdef __NR_openat2
  { "openat2", __NR_openat2 },
#endif
#ifdef __NR_statmount
  { "statmount", __NR_statmount },
#endif
#ifdef __NR_listmount
  { "listmount", __NR_listmount },
#endif
#ifdef __NR_getdents64
  { "getdents64", __NR_getdents64 },
#endif
#ifdef __NR_getcwd
  { "getcwd", __NR_getcwd },
#endif
};

#define N_CALLS (sizeof call_table / sizeof call_table[0])

/* The ioctl requests that --ioctls knows by name.  */
static const struct name_number ioctl_table[] =
{
  { "BTRFS_IOC_INO_LOOKUP", BTRFS_IOC_INO_LOOKUP },
  { "BTRFS_IOC_FS_INFO", BTRFS_IOC_FS_INFO },
  { "BTRFS_IOC_GET_SUBVOL_INFO", BTRFS_IOC_GET_SUBVOL_INFO },
  { "BTRFS_IOC_TREE_SEARCH", BTRFS_IOC_TREE_SEARCH },
  { "FS_IOC_GETFSUUID", FS_IOC_GETFSUUID },
  { "FS_IOC_GETFSSYSFSPATH", FS_IOC_GETFSSYSFSPATH },
};

#define N_IOCTLS (sizeof ioctl_table / sizeof ioctl_table[0])

static const char *program_name = "seccomp-eperm";

static void
usage (int status)
{
  if (status != EXIT_SUCCESS)
    {
      fprintf (stderr, "Try '%s --help' for more information.\n",
               program_name);
      exit (status);
    }

  printf ("Usage: %s [--calls LIST] [--ioctls LIST] -- CMD [ARG]...\n",
          program_name);
  fputs ("\
Run CMD under a seccomp filter that makes the chosen system calls fail\n\
with EPERM, as some container and sandbox profiles do.  The filter is\n\
inherited by CMD's children.\n\
\n\
  --calls=LIST    every call to the system calls named in the\n\
                  comma-separated LIST fails with EPERM\n\
  --ioctls=LIST   ioctl(2) fails with EPERM for the requests named in\n\
                  LIST; other requests work\n\
  --help          display this help and exit\n\
\n\
At least one of --calls and --ioctls is required; each may be repeated.\n\
\n\
System calls:", stdout);
  for (size_t i = 0; i < N_CALLS; i++)
    printf ("%s %s", i % 5 == 0 ? "\n " : "", call_table[i].name);
  fputs ("\n\nIoctl requests:", stdout);
  for (size_t i = 0; i < N_IOCTLS; i++)
    printf ("\n  %-26s (0x%08x)", ioctl_table[i].name,
            (unsigned int) ioctl_table[i].number);
  fputs ("\n\
  btrfs      (every request of type 0x94, BTRFS_IOCTL_MAGIC)\n\
  fs-uuid    (FS_IOC_GETFSUUID and FS_IOC_GETFSSYSFSPATH)\n\
\n\
Exit status: 125 for a usage error or if the filter cannot be installed,\n\
126 if CMD cannot be executed, 127 if it is not found, 77 on an\n\
unsupported architecture, and otherwise that of CMD.\n", stdout);
  exit (status);
}

/* Report a usage error and exit.  */
static void
usage_error (const char *message, const char *arg)
{
  if (arg)
    fprintf (stderr, "%s: %s: '%s'\n", program_name, message, arg);
  else
    fprintf (stderr, "%s: %s\n", program_name, message);
  usage (EXIT_CANCELED);
}

/* Everything from here to main is only needed, and only built, where
   the filter can be installed.  */
#ifdef NATIVE_AUDIT_ARCH

/* Return the index of NAME in TABLE of N entries, or -1.  */
static int
lookup (const struct name_number *table, size_t n, const char *name)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp (table[i].name, name) == 0)
      return (int) i;
  return -1;
}

/* What the user asked for.  Selections are flags rather than lists, so
   that repeated names cost nothing and the filter stays small.  */
static bool call_selected[N_CALLS];
static bool ioctl_selected[N_IOCTLS];
static bool btrfs_magic_selected;

/* Mark the system calls named in the comma-separated LIST.  LIST is
   modified in place, which is fine for argv.  */
static void
select_calls (char *list)
{
  char *next;
  for (char *name = list; name; name = next)
    {
      next = strchr (name, ',');
      if (next)
        *next++ = '\0';
      if (*name == '\0')
        usage_error ("empty name in --calls list", NULL);
      int i = lookup (call_table, N_CALLS, name);
      if (i < 0)
        usage_error ("unknown system call", name);
      call_selected[i] = true;
    }
}

/* Mark the ioctl requests named in the comma-separated LIST.  */
static void
select_ioctls (char *list)
{
  char *next;
  for (char *name = list; name; name = next)
    {
      next = strchr (name, ',');
      if (next)
        *next++ = '\0';
      if (*name == '\0')
        usage_error ("empty name in --ioctls list", NULL);
      if (strcmp (name, "btrfs") == 0)
        btrfs_magic_selected = true;
      else if (strcmp (name, "fs-uuid") == 0)
        {
          ioctl_selected[lookup (ioctl_table, N_IOCTLS,
                                 "FS_IOC_GETFSUUID")] = true;
          ioctl_selected[lookup (ioctl_table, N_IOCTLS,
                                 "FS_IOC_GETFSSYSFSPATH")] = true;
        }
      else
        {
          int i = lookup (ioctl_table, N_IOCTLS, name);
          if (i < 0)
            usage_error ("unknown ioctl request", name);
          ioctl_selected[i] = true;
        }
    }
}

/* The filter is assembled with symbolic jump targets, resolved once its
   length is known; classic BPF only jumps forward, by at most 255
   instructions, which the small tables keep us well within.  */
enum target
{
  NEXT,
  ALLOW,
  DENY,
  KILL
};

#define MAX_INSNS (N_CALLS + N_IOCTLS + 16)

static struct sock_filter insns[MAX_INSNS];
static enum target jt_target[MAX_INSNS];
static enum target jf_target[MAX_INSNS];
static size_t n_insns;

static void
emit (__u16 code, __u32 k, enum target jt, enum target jf)
{
  insns[n_insns].code = code;
  insns[n_insns].k = k;
  jt_target[n_insns] = jt;
  jf_target[n_insns] = jf;
  n_insns++;
}

/* Return the offset of a jump from instruction I to TARGET, given the
   index of each return instruction.  */
static __u8
jump_offset (size_t i, enum target target, const size_t *ret_index)
{
  return target == NEXT ? 0 : (__u8) (ret_index[target] - (i + 1));
}

static void
build_filter (void)
{
  /* A system call from another ABI than ours, such as the i386 one
     reached through int 0x80 on x86_64, uses other numbers, so the
     filter could neither deny the chosen calls there nor safely let them
     through.  Kill the process instead: loud, and never a silent bypass.
     Native test programs never do this.  */
  emit (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, arch),
        NEXT, NEXT);
  emit (BPF_JMP | BPF_JEQ | BPF_K, NATIVE_AUDIT_ARCH, NEXT, KILL);
  emit (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr),
        NEXT, NEXT);

# ifdef __x86_64__
  /* x32 calls share AUDIT_ARCH_X86_64 but set a high bit in the number,
     so without this check they would bypass every comparison below.
     Answer them all with EPERM rather than killing: that is what the
     emulated profiles do with calls they do not allow, and a program
     probing for x32 support gets a plain error.  Real x32 programs are
     not something the test suite runs.  */
  emit (BPF_JMP | BPF_JGE | BPF_K, X32_SYSCALL_BIT, DENY, NEXT);
# endif

  for (size_t i = 0; i < N_CALLS; i++)
    if (call_selected[i])
      emit (BPF_JMP | BPF_JEQ | BPF_K, call_table[i].number, DENY, NEXT);

  bool any_ioctl = btrfs_magic_selected;
  for (size_t i = 0; i < N_IOCTLS; i++)
    any_ioctl |= ioctl_selected[i];
  if (any_ioctl)
    {
      /* The kernel's ioctl takes the request as an unsigned int, so only
         the low 32 bits of the argument matter; comparing just those
         also catches callers that sign-extend the request.  */
      __u32 arg1 = offsetof (struct seccomp_data, args) + sizeof (__u64);
# if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
      arg1 += sizeof (__u32);
# endif
      emit (BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, NEXT, ALLOW);
      emit (BPF_LD | BPF_W | BPF_ABS, arg1, NEXT, NEXT);
      for (size_t i = 0; i < N_IOCTLS; i++)
        if (ioctl_selected[i])
          emit (BPF_JMP | BPF_JEQ | BPF_K, ioctl_table[i].number,
                DENY, NEXT);
      if (btrfs_magic_selected)
        {
          emit (BPF_ALU | BPF_AND | BPF_K, _IOC_TYPEMASK << _IOC_TYPESHIFT,
                NEXT, NEXT);
          emit (BPF_JMP | BPF_JEQ | BPF_K,
                BTRFS_IOCTL_MAGIC << _IOC_TYPESHIFT, DENY, NEXT);
        }
    }

  size_t ret_index[KILL + 1];
  ret_index[ALLOW] = n_insns;
  emit (BPF_RET | BPF_K, SECCOMP_RET_ALLOW, NEXT, NEXT);
  ret_index[DENY] = n_insns;
  emit (BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA),
        NEXT, NEXT);
  ret_index[KILL] = n_insns;
  emit (BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS, NEXT, NEXT);

  for (size_t i = 0; i < n_insns; i++)
    {
      insns[i].jt = jump_offset (i, jt_target[i], ret_index);
      insns[i].jf = jump_offset (i, jf_target[i], ret_index);
    }
}
#endif

int
main (int argc, char **argv)
{
  static const struct option long_options[] =
  {
    { "calls", required_argument, NULL, 'c' },
    { "ioctls", required_argument, NULL, 'i' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  bool have_list = false;
  int c;

  /* Use argv[0] as it is, as getopt_long does in its own messages.  */
  if (argv[0] && *argv[0])
    program_name = argv[0];

  /* Stop at the first operand, so that CMD's own options are left alone
     even without "--".  Lists are resolved later, once the architecture
     is known to be supported, so that a test on another architecture is
     skipped rather than failed over a name.  */
  char **call_lists = calloc (argc, sizeof *call_lists);
  char **ioctl_lists = calloc (argc, sizeof *ioctl_lists);
  size_t n_call_lists = 0, n_ioctl_lists = 0;
  if (!call_lists || !ioctl_lists)
    {
      fprintf (stderr, "%s: memory exhausted\n", program_name);
      return EXIT_CANCELED;
    }
  while ((c = getopt_long (argc, argv, "+", long_options, NULL)) != -1)
    switch (c)
      {
      case 'c':
        call_lists[n_call_lists++] = optarg;
        have_list = true;
        break;
      case 'i':
        ioctl_lists[n_ioctl_lists++] = optarg;
        have_list = true;
        break;
      case 'h':
        usage (EXIT_SUCCESS);
        break;
      default:
        usage (EXIT_CANCELED);
      }

  if (!have_list)
    usage_error ("at least one of --calls and --ioctls is required", NULL);
  if (optind >= argc)
    usage_error ("missing command", NULL);

#ifndef NATIVE_AUDIT_ARCH
  fprintf (stderr, "%s: unsupported architecture\n", program_name);
  return EXIT_UNSUPPORTED;
#else
  for (size_t i = 0; i < n_call_lists; i++)
    select_calls (call_lists[i]);
  for (size_t i = 0; i < n_ioctl_lists; i++)
    select_ioctls (ioctl_lists[i]);
  free (call_lists);
  free (ioctl_lists);

  build_filter ();
  struct sock_fprog prog = { .len = (unsigned short) n_insns,
                            .filter = insns };

  /* Without no_new_privs, an unprivileged process may not install a
     filter; setting it also keeps set-user-ID programs run below from
     gaining privileges the filter might otherwise be used to subvert.  */
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    {
      fprintf (stderr, "%s: cannot set no_new_privs: %s\n",
               program_name, strerror (errno));
      return EXIT_CANCELED;
    }
  if (prctl (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)
    {
      fprintf (stderr, "%s: cannot install seccomp filter: %s\n",
               program_name, strerror (errno));
      return EXIT_CANCELED;
    }

  execvp (argv[optind], &argv[optind]);

  /* Map the failure as the shell does, so that callers can tell a
     missing command from the command's own exit status.  */
  int exec_errno = errno;
  fprintf (stderr, "%s: %s: %s\n", program_name, argv[optind],
           strerror (exec_errno));
  return exec_errno == ENOENT ? EXIT_ENOENT : EXIT_CANNOT_INVOKE;
#endif
}
