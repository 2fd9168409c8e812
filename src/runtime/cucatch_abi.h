/* The ABI between instrumented PTX and the cucatch runtime: one header, included by the
 * rewriter (which emits PTX that follows it) and by the runtime (which fills the structures).
 * Plain C types and constants only. Changing anything here changes kAbiVersion.
 *
 *  - Pointer tags: the top 8 bits of a 64-bit global pointer.
 *  - BST: device array of BstEntry; entry 0 means "unknown" and lets everything through.
 *  - Shadow map: two levels indexed by the untagged address; a granule maps to a BST index.
 *  - Module state: a symbol in every instrumented module, filled by the runtime at load.
 *  - Error buffer: host-mapped memory; fixed-size records written by instrumented code.
 */
#ifndef CUCATCH_ABI_H
#define CUCATCH_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
namespace cucatch::abi {
#define CUCATCH_CONST inline constexpr
#else
#define CUCATCH_CONST static const
#endif

CUCATCH_CONST uint32_t kAbiVersion = 13;

/* ---- pointer tags -------------------------------------------------------------------- */
CUCATCH_CONST unsigned kTagShift = 56;                           /* tag = ptr >> 56 */
CUCATCH_CONST uint64_t kAddressMask = 0x00FFFFFFFFFFFFFFull;     /* untagged = ptr & mask */
/* Frame tags: a generic pointer into the frame of a device function that keeps its thread's
 * frame table (instrument/FrameTable.h) carries, in bits 48..55, the serial (1..255) the
 * function's call took when it pushed its frame; the table's entry keeps the same serial, so
 * that a pointer into a frame that returned, at a place a later call's frame now covers, is told
 * from a pointer into that later frame. Such a pointer's global tag byte is 0. Instrumented code
 * strips both with kGenericAddressMask before any access; the runtime never sees a frame tag
 * (local memory is not the host's), and its own untag keeps bits 48..55. */
CUCATCH_CONST unsigned kFrameTagShift = 48;
CUCATCH_CONST uint64_t kGenericAddressMask = 0x0000FFFFFFFFFFFFull; /* the address instrumented code accesses */
CUCATCH_CONST unsigned kFirstTemporalTag = 1;  /* 1..15: random temporal tag, metadata via the shadow map */
CUCATCH_CONST unsigned kLastTemporalTag = 15;
CUCATCH_CONST unsigned kFirstDirectTag = 16;   /* 16..255: the BST index itself */
/* (The runtime hands out even tags only, keeping bit 56 clear: src/runtime/Metadata.cpp.) */

/* ---- the device heap (malloc, free and new/delete in kernels) ------------------------- */
/* Instrumented code calls cucatch's wrappers instead of malloc, __cuda_syscall_aligned_malloc
 * (__nv_aligned_device_malloc) and free. Where the runtime hands out tagged pointers
 * (kFlagHeapTags), the malloc wrapper gives a block one of the odd direct tags 17..255, which
 * the runtime never hands out: the BST entry of that index is the block's, written on the
 * device (base, size, tag, state; the host never writes odd entries after the first upload).
 * A malloc looks at kHeapClaimTries entries; where all are live (120 blocks live at once, or
 * nearly), its block is handed out untagged (not checked, as before). The free
 * wrapper marks the entry freed (kept until the index is taken again, round robin, so that a
 * stale pointer reads "freed") and reports a double or invalid free instead of making it. */
CUCATCH_CONST unsigned kFirstHeapTag = 17;
CUCATCH_CONST unsigned kHeapTags = 120;                /* 17, 19, ..., 255 */
CUCATCH_CONST unsigned kHeapClaimTries = 4;            /* a heap full of live blocks costs 4 atomics a malloc */
CUCATCH_CONST unsigned kBstClaimed = 3;                /* BstState of an entry being written */
CUCATCH_CONST unsigned kHeapCursorIndex = 1;           /* BST entry 1's base: the round-robin cursor */
/* Where each block came from and went, in host memory (it survives a trap): kHeapTags pairs of
 * events, [i][0] the malloc of the block tagged kFirstHeapTag + 2i, [i][1] its free. */
typedef struct HeapEvent {
  uint32_t unit;       /* the compilation unit whose site table `site` indexes (0: none yet) */
  uint32_t site;       /* the call's site */
  uint32_t block[3];
  uint32_t thread[3];
  uint64_t base;       /* the block's address (untagged) and size: which block the event is of, */
  uint64_t size;       /* since the tag's pair is written again when the tag goes to another block */
} HeapEvent;
CUCATCH_CONST unsigned kHeapEventBytes = 48;  /* a multiple of 16: the events are stored as v4 */
CUCATCH_CONST unsigned kHeapLogBytes = kHeapTags * 2 * kHeapEventBytes;

/* ---- base & size table ---------------------------------------------------------------- */
enum BstState { kBstFree = 0, kBstLive = 1, kBstFreed = 2 /* (kBstClaimed = 3: the device heap's) */ };
typedef struct BstEntry {
  uint64_t base;     /* untagged start of the allocation */
  uint64_t size;     /* bytes; entry 0 (unknown memory) is [kNullPageBytes, 2^64): see there */
  uint8_t tag;       /* the tag handed out with the pointer (0: untagged) */
  uint8_t state;     /* BstState */
  uint16_t reserved0;
  uint32_t allocationId; /* host-side record with the allocation and free backtraces */
  uint64_t reserved1;
} BstEntry;
CUCATCH_CONST unsigned kBstEntryBytes = 32;
CUCATCH_CONST unsigned kBstMetaOffset = 16; /* the u32 at this offset: tag | state << 8 */
/* BST entry 0 is what an address no allocation covers is checked against: everything but the
 * first 64 KiB, so that an access through a null pointer (or at a small offset from one) is a
 * violation, reported as a null-pointer dereference. No device memory is mapped there, so the
 * original access would have faulted: a correct program never trips it. */
CUCATCH_CONST uint64_t kNullPageBytes = 64 * 1024;

/* ---- shadow map ------------------------------------------------------------------------- */
/* Indexed by the untagged address (47 bits), in three levels:
 *  - the root: 1 << kShadowRootBits uint64_t, each the device address of a directory (unused
 *    ones: one shared directory whose pages are all unmapped);
 *  - a directory: 1 << kShadowDirBits uint64_t page entries, one per 2 MiB page of its 32 GiB;
 *  - a page entry: (granule shift << kShadowEntryShiftBit) | leaf address. The leaf holds one
 *    uint32_t BST index per granule of 2^shift bytes, (page offset >> shift) indexing it. Each
 *    page has the coarsest granule its contents allow (at most 32 bytes fine), so a page inside
 *    one allocation is one granule of 2 MiB, and its "leaf" a word of a table the runtime keeps
 *    with word i holding i: no table of its own. Pages where small allocations lie get a table
 *    of 512-byte granules (what cudaMalloc places them at). */
CUCATCH_CONST unsigned kShadowGranuleShift = 5;    /* the finest granule: 32 bytes */
CUCATCH_CONST unsigned kShadowPageShift = 21;      /* 2 MiB pages */
CUCATCH_CONST unsigned kShadowDirBits = 14;        /* pages per directory: 32 GiB */
CUCATCH_CONST unsigned kShadowRootShift = 35;      /* kShadowPageShift + kShadowDirBits */
CUCATCH_CONST unsigned kShadowRootBits = 12;       /* directories: covers 2^47 bytes */
CUCATCH_CONST unsigned kShadowEntryShiftBit = 56;  /* a page entry's granule shift, in its top byte */
CUCATCH_CONST uint64_t kShadowEntryAddressMask = 0x00FFFFFFFFFFFFFFull;

/* ---- module state ----------------------------------------------------------------------- */
/* `__cucatch_state` in every instrumented module (`.weak .const`: every check reads it, and the
 * constant cache serves those uniform reads without a trip through L1), all zero until the
 * runtime fills it; with bst == 0 instrumented code runs unchecked. */
typedef struct ModuleState {
  uint64_t bst;          /* device address of BstEntry[bstCapacity] */
  uint64_t bstCapacity;
  uint64_t shadowRoot;   /* device address of uint64_t[1 << kShadowRootBits] */
  uint64_t errorBuffer;  /* device address of the host-mapped ErrorBuffer */
  uint32_t reserved;
  uint32_t flags;        /* kFlag* */
  uint64_t heapLog;      /* device address of the host-mapped HeapEvent[kHeapTags][2] */
  uint64_t reserved2[2];
} ModuleState;
CUCATCH_CONST unsigned kStateBstOffset = 0;
CUCATCH_CONST unsigned kStateShadowRootOffset = 16;
CUCATCH_CONST unsigned kStateErrorBufferOffset = 24;
CUCATCH_CONST unsigned kStateFlagsOffset = 36;
CUCATCH_CONST unsigned kStateHeapLogOffset = 40;
CUCATCH_CONST unsigned kStateBytes = 64;
CUCATCH_CONST uint32_t kFlagContinue = 2; /* report and go on instead of trapping */
CUCATCH_CONST uint32_t kFlagHeapTags = 4; /* device malloc tags its blocks (the runtime's pointers are tagged) */

/* ---- error records ---------------------------------------------------------------------- */
/* The metadata word carried with a pointer in instrumented code, and reported in
 * ErrorRecord::meta: verdict | entry tag << 8 | entry state << 16. The verdict (0, or
 * kMetaVerdictBad: the entry is not live, or the pointer's temporal tag is not the entry's;
 * the state says which) is decided when the metadata is read; an access with a non-zero
 * verdict, or out of [base, base + size), is a violation. */
CUCATCH_CONST unsigned kMetaVerdictMask = 0xFF;
CUCATCH_CONST unsigned kMetaVerdictBad = 1;
CUCATCH_CONST unsigned kMetaTagShift = 8;
CUCATCH_CONST unsigned kMetaStateShift = 16;
CUCATCH_CONST unsigned kMetaPointerTagShift = 24; /* in ErrorRecord::meta only: the tag of the pointer used */
/* The state byte of a metadata word whose bounds are not an allocation's or a variable's but the
 * block's whole shared memory (static and dynamic, this launch): a shared address of unknown
 * origin (a generic pointer that isspacep.shared placed in the shared window, or a 32-bit shared
 * address not made from a variable). Such a record's base and size are that window, as generic
 * addresses or shared-window offsets as the access used. */
CUCATCH_CONST unsigned kMetaStateSharedWindow = 0x80;
/* The state byte of a metadata word whose bounds are a variable's (a __shared__, __constant__ or
 * __device__ array, a local frame): its tag byte is the variable's index + 1 in the unit's
 * objects (the site table's "objects"), 0 where the unit has more than 255. How a function that
 * was given the pointer (and its bounds, by its caller) names the variable in a report. */
CUCATCH_CONST unsigned kMetaStateVariable = 0x40;
/* The state byte of a metadata word whose bounds are the local memory live while a kernel itself
 * runs (not a function it called): a generic pointer of unknown origin that isspacep.local placed
 * in the thread's local window, in a kernel. The bounds are the kernel's own frame (its only local
 * variable, as generic addresses), or, for a kernel with no local variable, an empty range at
 * kNoLiveLocal; an address outside is in a frame that has returned (a use after scope). The tag
 * byte names the frame as kMetaStateVariable's does (0 for none). */
CUCATCH_CONST unsigned kMetaStateLiveFrames = 0x20;
CUCATCH_CONST uint64_t kNoLiveLocal = 1ull << 56; /* above every untagged address */
/* The state byte of a metadata word whose bounds a device function found in its thread's frame
 * table (instrument/FrameTable.h): a generic pointer of unknown origin that isspacep.local placed
 * in the thread's local window. Verdict 0: the bounds are a frame (or an alloca'd block) live on
 * the thread's stack, an access outside them is out of bounds. Verdict kMetaVerdictBad: the
 * address is in no live frame, so in one that has returned (a use after scope); the bounds are
 * the frame that returned there, where the table still holds it, or an empty range at
 * kNoLiveLocal. The tag byte names the frame as kMetaStateVariable's does (0 for none, and for
 * an alloca'd block). */
CUCATCH_CONST unsigned kMetaStateFrameTable = 0x10;
/* The state bytes of a frame-table metadata word with verdict kMetaVerdictBad where the address is
 * inside a live frame whose serial is not the pointer's frame tag: the pointer was made in a
 * frame that has returned, and a later call's frame now lies where it was. Overwritten: the
 * bounds are the returned frame's (the tag byte names it), which the table kept when the later
 * call's push wrote over its entry. Reused: the table no longer holds it; the bounds are the
 * live frame's (the tag byte names that one). */
CUCATCH_CONST unsigned kMetaStateFrameOverwritten = 0x14;
CUCATCH_CONST unsigned kMetaStateFrameReused = 0x18;
/* kAccessFree: a device free refused (double or invalid); the record's base and size are the
 * entry the pointer's tag names (0 where it names none) and its meta that entry's word. */
enum AccessFlags { kAccessRead = 0, kAccessWrite = 1, kAccessAtomic = 2, kAccessFree = 3 };
typedef struct ErrorBufferHeader {
  uint32_t count;     /* incremented atomically by every violation, even past capacity */
  uint32_t capacity;  /* records that follow the 64-byte header */
  uint8_t reserved[56];
} ErrorBufferHeader;
typedef struct ErrorRecord {
  uint32_t site;       /* index into the module's site table */
  uint32_t info;       /* access size << 8 | AccessFlags */
  uint64_t address;    /* untagged address accessed */
  uint64_t base;       /* metadata the access was checked against */
  uint64_t size;       /* (a site checked against a part of dynamic shared memory: base is the
                        * region's start, the low half of size the part's end from there, the high
                        * half the part's start, a shared-window address) */
  uint32_t meta;       /* the metadata word (see kMeta*), with the pointer's tag in the top byte */
  uint32_t unit;       /* the compilation unit whose site table `site` indexes */
  uint32_t block[3];
  uint32_t thread[3];
} ErrorRecord;
CUCATCH_CONST unsigned kErrorHeaderBytes = 64;
CUCATCH_CONST unsigned kErrorRecordBytes = 64;
/* Where instrumented code stores the fields (records are 64-byte aligned: vector stores). */
CUCATCH_CONST unsigned kRecordSiteOffset = 0;     /* site, info: one v2.u32 store */
CUCATCH_CONST unsigned kRecordAddressOffset = 8;
CUCATCH_CONST unsigned kRecordBaseOffset = 16;
CUCATCH_CONST unsigned kRecordSizeOffset = 24;
CUCATCH_CONST unsigned kRecordMetaOffset = 32;    /* meta, unit, block[0], block[1]: one v4.u32 */
CUCATCH_CONST unsigned kRecordBlockZOffset = 48;  /* block[2], thread[0..2]: one v4.u32 */

#ifdef __cplusplus
static_assert(sizeof(BstEntry) == kBstEntryBytes);
static_assert(sizeof(ModuleState) == kStateBytes);
static_assert(offsetof(ModuleState, flags) == kStateFlagsOffset && offsetof(ModuleState, heapLog) == kStateHeapLogOffset);
static_assert(sizeof(HeapEvent) == kHeapEventBytes);
static_assert(kFirstHeapTag + 2 * (kHeapTags - 1) == 255);
static_assert(sizeof(ErrorBufferHeader) == kErrorHeaderBytes);
static_assert(sizeof(ErrorRecord) == kErrorRecordBytes);
static_assert(offsetof(ErrorRecord, site) == kRecordSiteOffset && offsetof(ErrorRecord, info) == kRecordSiteOffset + 4);
static_assert(offsetof(ErrorRecord, address) == kRecordAddressOffset);
static_assert(offsetof(ErrorRecord, base) == kRecordBaseOffset && offsetof(ErrorRecord, size) == kRecordSizeOffset);
static_assert(offsetof(ErrorRecord, meta) == kRecordMetaOffset && offsetof(ErrorRecord, unit) == kRecordMetaOffset + 4);
static_assert(offsetof(ErrorRecord, block) == kRecordMetaOffset + 8);
static_assert(offsetof(ErrorRecord, block) + 8 == kRecordBlockZOffset);
static_assert(offsetof(ErrorRecord, thread) == kRecordBlockZOffset + 4);
}  /* namespace cucatch::abi */
#endif
#undef CUCATCH_CONST

/* Symbol names in instrumented modules. */
#define CUCATCH_STATE_SYMBOL "__cucatch_state"
#define CUCATCH_MARKER_SYMBOL "__cucatch_abi_version"
/* Declared `.extern .shared .align 16 .b8 __cucatch_dynamic_smem[]` in a module whose checks
 * need the end of the block's shared memory: its address plus %dynamic_smem_size. */
#define CUCATCH_DYNAMIC_SMEM_SYMBOL "__cucatch_dynamic_smem"
/* Every instrumented PTX module (a compilation unit; several are linked into one module with
 * -rdc) has a 32-bit unit id, a site table __cucatch_sites_<id as 8 hex digits> (JSON: its sites
 * and its kernels) and an empty kernel __cucatch_unit_<id as 8 hex digits>_v<kAbiVersion>, by
 * whose name the runtime finds the units of a loaded module and their ABI version. */
#define CUCATCH_SITES_PREFIX "__cucatch_sites_"
#define CUCATCH_UNIT_PREFIX "__cucatch_unit_"
#define CUCATCH_UNIT_VERSION_INFIX "_v"

#endif /* CUCATCH_ABI_H */
