#include "textflag.h"

// Constant vectors: one byte repeated 32 times.
#define VEC(name, b) \
	DATA name<>+0(SB)/8, $(b*0x0101010101010101); \
	DATA name<>+8(SB)/8, $(b*0x0101010101010101); \
	DATA name<>+16(SB)/8, $(b*0x0101010101010101); \
	DATA name<>+24(SB)/8, $(b*0x0101010101010101); \
	GLOBL name<>(SB), RODATA|NOPTR, $32

VEC(bslash, 0x5c)
VEC(x04, 0x04)
VEC(x20, 0x20)
VEC(x22, 0x22)
VEC(x66, 0x66)
VEC(x6e, 0x6e)
VEC(x72, 0x72)
VEC(x74, 0x74)
VEC(x7f, 0x7f)

// func plainRunAVX2(s []byte) int
//
// Thirty-two bytes at a time, as long as 33 bytes are left: B marks the
// backslashes, F the bytes that follow an escape written alike (n r t b f
// and the quote; not the backslash, so that a \\ pair stops the scan at
// its first byte), Q the quotes, O the bytes DEL and those below 0x20 or
// above 0x7f (signed compare). E = B & F are escapes written alike; the
// scan stops at the lowest of: a backslash that does not start one, a
// quote not escaped by one, a byte of O.
TEXT ·plainRunAVX2(SB), NOSPLIT, $0-32
	MOVQ s_base+0(FP), SI
	MOVQ s_len+8(FP), CX
	XORQ AX, AX

loop:
	LEAQ 33(AX), DX
	CMPQ DX, CX
	JA   done
	VMOVDQU (SI)(AX*1), Y0  // x: the bytes
	VMOVDQU 1(SI)(AX*1), Y1 // y: the byte after each

	VPCMPEQB bslash<>(SB), Y0, Y2 // B

	VPCMPEQB x6e<>(SB), Y1, Y3 // F: n
	VPCMPEQB x72<>(SB), Y1, Y4 // r
	VPOR     Y4, Y3, Y3
	VPCMPEQB x74<>(SB), Y1, Y4 // t
	VPOR     Y4, Y3, Y3
	VPCMPEQB x22<>(SB), Y1, Y4 // "
	VPOR     Y4, Y3, Y3
	VPOR     x04<>(SB), Y1, Y4
	VPCMPEQB x66<>(SB), Y4, Y4 // b and f
	VPOR     Y4, Y3, Y3

	VPCMPEQB x22<>(SB), Y0, Y4 // Q: "

	VPCMPEQB x7f<>(SB), Y0, Y5 // DEL
	VMOVDQU  x20<>(SB), Y6
	VPCMPGTB Y0, Y6, Y6        // below 0x20, or above 0x7f
	VPOR     Y6, Y5, Y5        // O

	VPMOVMSKB Y2, R8  // B
	VPMOVMSKB Y3, R9  // F
	VPMOVMSKB Y4, R10 // Q
	VPMOVMSKB Y5, R11 // O

	MOVL R8, R12
	ANDL R9, R12  // E
	NOTL R9
	ANDL R8, R9   // B &^ F
	MOVL R12, DX
	SHLL $1, DX
	NOTL DX
	ANDL R10, DX  // Q &^ (E << 1)
	ORL  DX, R9
	ORL  R11, R9
	TESTL R9, R9
	JNZ  found

	ADDQ $32, AX
	BTL  $31, R12 // an escape across the edge: skip the byte after it
	JCC  loop
	INCQ AX
	JMP  loop

found:
	BSFL R9, R9
	ADDQ R9, AX

done:
	VZEROUPPER
	MOVQ AX, ret+24(FP)
	RET
