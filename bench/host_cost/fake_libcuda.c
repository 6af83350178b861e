// A stand-in for libcuda.so.1 that accepts every call the runtime makes and runs nothing:
// bench/host_cost/run.sh counts the host instructions of the launch path against it.
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
typedef int CUresult;
typedef void *P;
static int ctx_obj, mod_obj, fn_obj, ev_obj, st_obj;
static void *current = 0;
CUresult cuInit(unsigned f) { return 0; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }
CUresult cuDeviceGetCount(int *c) { *c = 1; return 0; }
CUresult cuDeviceGet(int *d, int o) { *d = o; return 0; }
CUresult cuDevicePrimaryCtxRetain(P *c, int d) { *c = &ctx_obj; return 0; }
CUresult cuDevicePrimaryCtxRelease(int d) { return 0; }
CUresult cuDevicePrimaryCtxRelease_v2(int d) { return 0; }
CUresult cuDevicePrimaryCtxGetState(int d, unsigned *f, int *a) { *f = 0; *a = 1; return 0; }
CUresult cuDevicePrimaryCtxSetFlags(int d, unsigned f) { return 0; }
CUresult cuDevicePrimaryCtxSetFlags_v2(int d, unsigned f) { return 0; }
CUresult cuCtxSetCurrent(P c) { current = c; return 0; }
CUresult cuCtxGetCurrent(P *c) { *c = current; return 0; }
CUresult cuCtxPushCurrent(P c) { current = c; return 0; }
CUresult cuCtxPushCurrent_v2(P c) { current = c; return 0; }
CUresult cuCtxPopCurrent(P *c) { if (c) *c = current; return 0; }
CUresult cuCtxPopCurrent_v2(P *c) { if (c) *c = current; return 0; }
CUresult cuCtxGetDevice(int *d) { *d = 0; return 0; }
CUresult cuCtxSynchronize(void) { return 0; }
CUresult cuCtxSetLimit(int l, size_t v) { return 0; }
CUresult cuCtxGetLimit(size_t *v, int l) { *v = 0; return 0; }
CUresult cuCtxGetFlags(unsigned *f) { *f = 0; return 0; }
CUresult cuCtxGetApiVersion(P c, unsigned *v) { *v = 13000; return 0; }
CUresult cuDeviceGetAttribute(int *v, int a, int d) {
  switch (a) {
    case 75: *v = 9; break;  // cc major
    case 76: *v = 0; break;  // cc minor
    case 1: case 2: case 3: *v = 1024; break;
    case 4: *v = 64; break; case 8: *v = 49152; break;
    case 5: *v = 2147483647; break; case 6: case 7: *v = 65535; break;
    case 97: *v = 232448; break;
    case 16: *v = 132; break;
    default: *v = 1; break;
  }
  return 0;
}
CUresult cuDeviceGetName(char *n, int len, int d) { strncpy(n, "fake", len); return 0; }
CUresult cuDeviceTotalMem(size_t *b, int d) { *b = (size_t)1 << 34; return 0; }
CUresult cuDeviceTotalMem_v2(size_t *b, int d) { *b = (size_t)1 << 34; return 0; }
CUresult cuDeviceGetUuid(char *u, int d) { memset(u, 0, 16); return 0; }
CUresult cuDeviceGetUuid_v2(char *u, int d) { memset(u, 0, 16); return 0; }
CUresult cuMemGetInfo(size_t *f, size_t *t) { *f = *t = (size_t)1 << 34; return 0; }
CUresult cuMemGetInfo_v2(size_t *f, size_t *t) { *f = *t = (size_t)1 << 34; return 0; }
static void *al(size_t n) { void *p = 0; posix_memalign(&p, 256, n ? n : 1); memset(p, 0, n); return p; }
CUresult cuMemAlloc(uint64_t *p, size_t n) { *p = (uint64_t)al(n); return 0; }
CUresult cuMemAlloc_v2(uint64_t *p, size_t n) { *p = (uint64_t)al(n); return 0; }
CUresult cuMemAllocAsync(uint64_t *p, size_t n, P s) { *p = (uint64_t)al(n); return 0; }
CUresult cuMemFree(uint64_t p) { free((void *)p); return 0; }
CUresult cuMemFree_v2(uint64_t p) { free((void *)p); return 0; }
CUresult cuMemFreeAsync(uint64_t p, P s) { free((void *)p); return 0; }
CUresult cuMemHostAlloc(P *p, size_t n, unsigned f) { *p = al(n); return 0; }
CUresult cuMemAllocHost(P *p, size_t n) { *p = al(n); return 0; }
CUresult cuMemAllocHost_v2(P *p, size_t n) { *p = al(n); return 0; }
CUresult cuMemFreeHost(P p) { free(p); return 0; }
CUresult cuMemHostGetDevicePointer(uint64_t *d, P p, unsigned f) { *d = (uint64_t)p; return 0; }
CUresult cuMemHostGetDevicePointer_v2(uint64_t *d, P p, unsigned f) { *d = (uint64_t)p; return 0; }
CUresult cuMemcpyHtoD_v2(uint64_t d, const void *s, size_t n) { memcpy((void *)d, s, n); return 0; }
CUresult cuMemcpyHtoDAsync_v2(uint64_t d, const void *s, size_t n, P st) { memcpy((void *)d, s, n); return 0; }
CUresult cuMemcpyDtoH_v2(void *d, uint64_t s, size_t n) { memcpy(d, (void *)s, n); return 0; }
CUresult cuMemcpyDtoHAsync_v2(void *d, uint64_t s, size_t n, P st) { memcpy(d, (void *)s, n); return 0; }
CUresult cuMemcpyDtoD_v2(uint64_t d, uint64_t s, size_t n) { memcpy((void *)d, (void *)s, n); return 0; }
CUresult cuMemcpyDtoDAsync_v2(uint64_t d, uint64_t s, size_t n, P st) { memcpy((void *)d, (void *)s, n); return 0; }
CUresult cuMemsetD8_v2(uint64_t d, unsigned char v, size_t n) { memset((void *)d, v, n); return 0; }
CUresult cuMemsetD8Async(uint64_t d, unsigned char v, size_t n, P s) { memset((void *)d, v, n); return 0; }
CUresult cuMemsetD32_v2(uint64_t d, unsigned v, size_t n) { for (size_t i = 0; i < n; i++) ((unsigned *)d)[i] = v; return 0; }
CUresult cuMemsetD32Async(uint64_t d, unsigned v, size_t n, P s) { return cuMemsetD32_v2(d, v, n); }
CUresult cuEventCreate(P *e, unsigned f) { *e = &ev_obj; return 0; }
CUresult cuEventRecord(P e, P s) { return 0; }
CUresult cuEventRecordWithFlags(P e, P s, unsigned f) { return 0; }
CUresult cuEventDestroy(P e) { return 0; }
CUresult cuEventDestroy_v2(P e) { return 0; }
CUresult cuEventSynchronize(P e) { return 0; }
CUresult cuEventQuery(P e) { return 0; }
CUresult cuEventElapsedTime(float *ms, P a, P b) { *ms = 0; return 0; }
CUresult cuEventElapsedTime_v2(float *ms, P a, P b) { *ms = 0; return 0; }
CUresult cuStreamCreate(P *s, unsigned f) { *s = &st_obj; return 0; }
CUresult cuStreamCreateWithPriority(P *s, unsigned f, int p) { *s = &st_obj; return 0; }
CUresult cuStreamDestroy(P s) { return 0; }
CUresult cuStreamDestroy_v2(P s) { return 0; }
CUresult cuStreamSynchronize(P s) { return 0; }
CUresult cuStreamWaitEvent(P s, P e, unsigned f) { return 0; }
CUresult cuStreamQuery(P s) { return 0; }
CUresult cuStreamIsCapturing(P s, int *st) { *st = 0; return 0; }
CUresult cuModuleLoadData(P *m, const void *img) { *m = &mod_obj; return 0; }
CUresult cuModuleLoadDataEx(P *m, const void *img, unsigned n, P o, P v) { *m = &mod_obj; return 0; }
CUresult cuModuleUnload(P m) { return 0; }
CUresult cuModuleGetFunction(P *f, P m, const char *name) { *f = &fn_obj; return 0; }
CUresult cuModuleGetGlobal_v2(uint64_t *d, size_t *b, P m, const char *n) { static char g[4096]; if (d) *d = (uint64_t)g; if (b) *b = 4096; return 0; }
CUresult cuFuncGetAttribute(int *v, int a, P f) { *v = a == 0 ? 1024 : 0; return 0; }
CUresult cuFuncSetAttribute(P f, int a, int v) { return 0; }
CUresult cuFuncSetCacheConfig(P f, int c) { return 0; }
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, P f, int b, size_t s) { *n = 2; return 0; }
CUresult cuLaunchKernel(P f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned sh, P s, void **params, void **extra) {
  return 0;
}
CUresult cuLaunchCooperativeKernel(P f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned sh, P s, void **params) { return 0; }
CUresult cuGetErrorString(int e, const char **s) { *s = "fake"; return 0; }
CUresult cuGetErrorName(int e, const char **s) { *s = "CUDA_FAKE"; return 0; }
CUresult cuPointerGetAttribute(void *d, int a, uint64_t p) { memset(d, 0, 8); return 0; }
CUresult cuDeviceCanAccessPeer(int *c, int a, int b) { *c = 0; return 0; }
CUresult cuGetExportTable(const void **t, const void *id) { *t = 0; return 801; }
