/**
 * A PDF of a Markdown report (docs/configuration.md "Case report"), with no browser: the
 * Markdown is read by `marked`'s lexer and laid out with PDFKit's standard Helvetica on A4
 * (headings, paragraphs, lists and tables; other tokens as plain text). Deterministic: the
 * document's dates are `createdAt`, so the same Markdown and date give the same bytes.
 * The standard fonts carry Latin-1 (WinAnsi): other characters are printed as `?`.
 */
import { Lexer, type Token, type Tokens } from 'marked';
import PDFDocument from 'pdfkit';

const MARGIN = 40;
const BODY = 9;

/** `text` in what the standard fonts can print: WinAnsi's Latin-1 range, the rest as `?`. */
const printable = (text: string) => text.replace(/[^\t\n\r\u0020-\u007e\u00a0-\u00ff\u2013\u2014\u2018\u2019\u201c\u201d\u2022\u2026]/g, '?');

/** A table cell's text as written, its escaped pipes restored. */
const cellText = (cell: Tokens.TableCell) => printable(cell.text.replace(/\\\|/g, '|'));

function drawTable(doc: PDFKit.PDFDocument, table: Tokens.Table): void {
  const width = doc.page.width - 2 * MARGIN;
  const columns = table.header.length;
  const columnWidth = width / columns;
  const drawRow = (cells: string[], bold: boolean) => {
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(BODY - 1);
    const height = Math.max(...cells.map((c) => doc.heightOfString(c, { width: columnWidth - 4 }))) + 4;
    if (doc.y + height > doc.page.height - MARGIN) doc.addPage();
    const top = doc.y;
    cells.forEach((c, i) => {
      doc.text(c, MARGIN + i * columnWidth, top + 2, { width: columnWidth - 4, lineBreak: true });
    });
    doc
      .moveTo(MARGIN, top + height)
      .lineTo(MARGIN + width, top + height)
      .lineWidth(0.3)
      .strokeColor('#999999')
      .stroke();
    doc.x = MARGIN;
    doc.y = top + height;
  };
  drawRow(table.header.map(cellText), true);
  for (const row of table.rows) drawRow(row.map(cellText), false);
  doc.moveDown(0.5);
}

function draw(doc: PDFKit.PDFDocument, token: Token): void {
  switch (token.type) {
    case 'heading':
      doc
        .moveDown(0.5)
        .font('Helvetica-Bold')
        .fontSize(token.depth === 1 ? 16 : 12)
        .text(printable(token.text), { width: doc.page.width - 2 * MARGIN });
      doc.moveDown(0.3);
      return;
    case 'paragraph':
    case 'text':
      doc
        .font('Helvetica')
        .fontSize(BODY)
        .text(printable(token.text), { width: doc.page.width - 2 * MARGIN });
      doc.moveDown(0.3);
      return;
    case 'list':
      for (const item of (token as Tokens.List).items) {
        doc
          .font('Helvetica')
          .fontSize(BODY)
          .text(`\u2022 ${printable(item.text)}`, { width: doc.page.width - 2 * MARGIN, indent: 8 });
      }
      doc.moveDown(0.3);
      return;
    case 'table':
      drawTable(doc, token as Tokens.Table);
      return;
    case 'space':
      return;
    default:
      if ('text' in token && typeof token.text === 'string') {
        doc
          .font('Helvetica')
          .fontSize(BODY)
          .text(printable(token.text), { width: doc.page.width - 2 * MARGIN });
      }
  }
}

/** The PDF of `markdown`, titled `title`, its creation date `createdAt`. */
export function markdownPdf(markdown: string, meta: { title: string; createdAt: Date }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({
      size: 'A4',
      margin: MARGIN,
      info: { Title: printable(meta.title), Creator: 'svc', Producer: 'svc', CreationDate: meta.createdAt, ModDate: meta.createdAt },
    });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    for (const token of Lexer.lex(markdown)) draw(doc, token);
    doc.end();
  });
}
