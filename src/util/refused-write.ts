/** Error codes of a filesystem that refuses a write: the folder's rights, a read-only mount, a full disk. */
const REFUSED_WRITES = new Set([
  'EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'EISDIR', 'ENOTDIR', 'EEXIST', 'EBUSY', 'EMFILE', 'ENFILE', 'EIO',
  // A symlink in the way (a loop, or one to nothing), a name too long, and Node's own code for removing a folder as a file.
  'ELOOP', 'ENOENT', 'ENAMETOOLONG', 'ERR_FS_EISDIR',
]);

/** Whether `error` is the filesystem refusing a write (not a bug of krt's): the writer and the loader's cache ask alike. */
export function isRefusedWrite(error: unknown): error is NodeJS.ErrnoException {
  // By its code, not `instanceof Error`: an error of another realm (a vm context, jest's) is one too.
  const code = typeof error === 'object' && error !== null ? (error as NodeJS.ErrnoException).code : undefined;
  return typeof code === 'string' && REFUSED_WRITES.has(code);
}
