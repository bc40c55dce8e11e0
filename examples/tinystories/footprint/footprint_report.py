#!/usr/bin/env python3
"""Groups a binary's symbols by origin (Abseil parts, edgeq packages, libstdc++): bytes, share,
count. Usage: footprint_report.py BINARY_WITH_SYMBOLS [NM]  (NM: aarch64-linux-gnu-nm for ARM)."""
import re,subprocess,sys,collections
out=subprocess.run([sys.argv[2] if len(sys.argv)>2 else 'nm','--size-sort','-C','-S',sys.argv[1]],capture_output=True,text=True).stdout
rules=[('absl cord',r'cord|Cord'),('absl time/cctz',r'cctz|time_internal|absl::debian3::(Time|Duration|Now|Format|Parse|civil|LoadTimeZone|FixedTimeZone|UTC)|GetCurrentTimeNanos|CycleClock'),
('absl sync (Mutex)',r'synchronization_internal|Mutex|CondVar|synch_|SpinLock|GraphCycles|KernelTimeout|PerThreadSem|Waiter'),
('absl debugging',r'debugging_internal|Symboliz|Demangle|Stacktrace|StackTrace|GetStackFrames|ElfMem|FailureSignal'),
('absl str_format',r'str_format_internal|FloatToSink|FormatConv'),('absl numbers/charconv',r'from_chars|ParsedFloat|Power10|MustRoundUp|numbers_internal|SimpleAto|EiselLemire|kPower|FastIntToBuffer|ParseFloat|charconv|int128'),
('absl hash containers',r'raw_hash_set|container_internal|hash_internal'),('absl status',r'absl::debian3::(Status|status_internal|StatusOr|internal_statusor)'),('absl strings',r'absl::debian3::(Str|strings_internal|ByAnyChar|ByChar|ByString|AsciiStr|CUnescape|CEscape|string_view|Substitute|ascii_internal)'),('absl other',r'absl::'),
('edgeq kernels',r'edgeq::kernels|avx|Avx|X16|neon|dotprod|i8mm'),('edgeq quantization codecs',r'edgeq::quantization|QuantizeRow|QuantizeK|Encoding'),('edgeq checkpoint',r'edgeq::checkpoint'),('edgeq graph',r'edgeq::ops|edgeq::Graph|GraphData|edgeq::Node|edgeq::Value|Verif'),('edgeq tinystories',r'edgeq::tinystories'),('edgeq runtime+core',r'edgeq::'),('main',r'^main$'),('libstdc++ templates',r'std::')]
s=collections.Counter(); n=collections.Counter()
for line in out.splitlines():
    p=line.split(None,3)
    if len(p)<4: continue
    size=int(p[1],16); name=p[3]
    for c,r in rules:
        if re.search(r,name): break
    else: c='other (libc/crt, XNNPACK glue)'
    s[c]+=size; n[c]+=1
tot=sum(s.values())
for c,v in s.most_common(): print(f"{v:9d} {100*v/tot:5.1f}% {n[c]:5d} {c}")
print(f"{tot:9d} total symbol bytes")
