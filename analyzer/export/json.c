// SPDX-License-Identifier: GPL-2.0
/*
 * The html page's JSON (html.h): strings safe inside a <script> element,
 * numbers and ids, written with no allocation (a page holds millions).
 */
#include "analyzer/export/html.h"

void html_json_str(FILE *o, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	fputc('"', o);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(o, "\\%c", *p);
		else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&')
			fprintf(o, "\\u%04x", *p);	/* never "</script>" */
		else
			fputc(*p, o);
	}
	fputc('"', o);
}

void html_num(FILE *o, bool sep, uint64_t v)
{
	char b[24], *p = b + sizeof(b);

	do {
		*--p = '0' + v % 10;
		v /= 10;
	} while (v);
	if (sep)
		*--p = ',';
	fwrite_unlocked(p, 1, b + sizeof(b) - p, o);
}

void html_id(FILE *o, bool sep, uint32_t id)
{
	if (id == UINT32_MAX)
		fputs(sep ? ",-1" : "-1", o);
	else
		html_num(o, sep, id);
}
