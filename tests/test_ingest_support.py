"""Helpers of the ingest tests: the real documents in ../shared/evaldata, and generators that
write real DOCX / PPTX / XLSX / PDF files into tmp_path with the libraries that read them."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest

EVALDATA = Path(__file__).resolve().parents[2] / "shared" / "evaldata"
DOCUMENTS = EVALDATA / "documents"


def real_file(relative: str) -> Path:
    """A file of ../shared/evaldata/documents (never copied into the repo); skip when absent."""
    path = DOCUMENTS / relative
    if not path.is_file():
        pytest.skip(f"real evaluation document not available: {path}")
    return path


def make_docx(path: Path) -> Path:
    """A policy with headings, a list, and a table in the middle with vertical and horizontal merges."""
    import docx

    document = docx.Document()
    document.add_heading("差旅费管理办法", level=1)
    document.add_paragraph("为规范差旅费管理，制定本办法。本办法自2024年1月1日起施行。")
    document.add_heading("住宿标准", level=2)
    document.add_paragraph("出差人员应当在下表标准内住宿。")
    table = document.add_table(rows=5, cols=4)
    rows = [
        ["地区", "级别", "标准（元/晚）", "备注"],
        ["北京", "司局级", "800", "含早餐"],
        ["北京", "处级及以下", "500", ""],
        ["上海", "司局级", "750", ""],
        ["上海", "处级及以下", "450", ""],
    ]
    for r, values in enumerate(rows):
        for c, value in enumerate(values):
            table.cell(r, c).text = value
    table.cell(2, 3).merge(table.cell(4, 3)).text = "旺季上浮20%"  # vertical merge, rows 2-4
    document.add_paragraph("表后说明：超出标准部分由个人承担。")
    document.add_heading("交通工具", level=2)
    document.add_paragraph("乘坐火车二等座", style="List Bullet")
    document.add_paragraph("乘坐飞机经济舱", style="List Bullet")
    wide = document.add_table(rows=3, cols=3)
    wide.cell(0, 0).text = "类别"
    wide.cell(0, 1).merge(wide.cell(0, 2)).text = "报销比例"  # horizontal merge in the header
    for c, value in enumerate(["市内交通", "100%", "限额200元"]):
        wide.cell(1, c).text = value
    wide.cell(2, 0).merge(wide.cell(2, 1)).text = "其他交通（凭票）"  # horizontal merge in a data row
    wide.cell(2, 2).text = "据实报销"
    document.save(str(path))
    return path


def make_pptx(path: Path) -> Path:
    """Two slides: a title slide with text, and a table slide with a merged cell and notes."""
    from pptx import Presentation
    from pptx.util import Inches

    presentation = Presentation()
    first = presentation.slides.add_slide(presentation.slide_layouts[1])
    first.shapes.title.text = "年度工作总结"
    first.placeholders[1].text = "2023年完成预算执行率98%"
    second = presentation.slides.add_slide(presentation.slide_layouts[5])
    second.shapes.title.text = "预算执行表"
    shape = second.shapes.add_table(4, 3, Inches(1), Inches(2), Inches(6), Inches(2))
    values = [["部门", "预算（万元）", "执行率"], ["教务处", "120", "97%"], ["科研处", "300", "99%"],
              ["后勤处", "80", ""]]
    for r, row in enumerate(values):
        for c, value in enumerate(row):
            shape.table.cell(r, c).text = value
    shape.table.cell(2, 2).merge(shape.table.cell(3, 2))
    shape.table.cell(2, 2).text = "99%"
    second.notes_slide.notes_text_frame.text = "执行率按财务处口径统计。"
    presentation.save(str(path))
    return path


def make_xlsx(path: Path) -> Path:
    """A sheet with a merged title row, a two-level merged header, an empty column, a formula
    whose cached value is present (as Excel saves it), and a second small sheet."""
    import openpyxl

    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "收费表"
    sheet["A1"] = "2024年学费标准"
    sheet.merge_cells("A1:E1")
    sheet["A2"], sheet["B2"], sheet["C2"] = "学院", "专业", "学费（元/年）"
    sheet.merge_cells("A2:A3")
    sheet.merge_cells("B2:B3")
    sheet.merge_cells("C2:E2")
    sheet["C3"], sheet["E3"] = "本科", "合计"  # column D stays empty throughout
    data = [["文学院", "汉语言文学", 5000], ["理学院", "数学", 5500], ["工学院", "计算机", 6000]]
    for r, (school, major, fee) in enumerate(data, start=4):
        sheet.cell(r, 1, school)
        sheet.cell(r, 2, major)
        sheet.cell(r, 3, fee)
        sheet.cell(r, 5, f"=C{r}*4")
    other = workbook.create_sheet("说明")
    other["A1"], other["B1"] = "项目", "内容"
    other["A2"], other["B2"] = "缴费时间", "每年9月1日前"
    buffer = io.BytesIO()
    workbook.save(buffer)
    path.write_bytes(_with_cached_values(buffer.getvalue(), {f"E{r}": str(fee * 4) for r, (_, _, fee) in
                                                             enumerate(data, start=4)}))
    return path


def _with_cached_values(xlsx: bytes, values: dict[str, str]) -> bytes:
    """Give formula cells the cached value Excel would store (openpyxl writes formulas only)."""
    source = zipfile.ZipFile(io.BytesIO(xlsx))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "xl/worksheets/sheet1.xml":
                text = data.decode("utf-8")
                for ref, value in values.items():
                    text = re.sub(rf'(<c r="{ref}"[^>]*>)<f>([^<]*)</f><v\s*/?>(</v>)?',
                                  rf"\1<f>\2</f><v>{value}</v>", text)
                data = text.encode("utf-8")
            target.writestr(info, data)
    return out.getvalue()


def _chinese_font() -> str:
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont

    if "STSong-Light" not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    return "STSong-Light"


def make_pdf(path: Path, pages: int = 4, image_page: bool = False) -> Path:
    """A Chinese PDF: running header and page-number footer on every page, a larger-font
    heading, body text, and on page 2 a ruled table; optionally a last page that is only an image."""
    from reportlab.lib import colors
    from reportlab.pdfgen import canvas
    from reportlab.platypus import Table, TableStyle

    font = _chinese_font()
    pdf = canvas.Canvas(str(path))
    for number in range(1, pages + 1):
        pdf.setFont(font, 9)
        pdf.drawString(72, 800, "某某大学财务处文件")
        pdf.drawString(280, 40, f"第 {number} 页")
        pdf.setFont(font, 18)
        pdf.drawString(72, 740, f"第{number}章 规定{number}")
        pdf.setFont(font, 11)
        pdf.drawString(72, 710, f"本章规定第{number}类事项的办理流程，自2023年3月1日起执行。")
        pdf.drawString(72, 692, "申请人应当提交书面材料。")
        if number == 2:
            table = Table([["项目", "金额（元）", "审批人"], ["差旅费", "1200", "处长"], ["会议费", "3000", "校长"]])
            table.setStyle(TableStyle([("FONTNAME", (0, 0), (-1, -1), font),
                                       ("GRID", (0, 0), (-1, -1), 0.5, colors.black)]))
            table.wrapOn(pdf, 400, 200)
            table.drawOn(pdf, 72, 560)
        pdf.showPage()
    if image_page:
        pdf.drawImage(_image_reader(), 72, 400, width=300, height=200)
        pdf.showPage()
    pdf.save()
    return path


def _image_reader() -> object:
    from PIL import Image, ImageDraw
    from reportlab.lib.utils import ImageReader

    image = Image.new("RGB", (300, 200), "white")
    ImageDraw.Draw(image).rectangle((20, 20, 280, 180), outline="black")
    return ImageReader(image)


def make_encrypted_pdf(path: Path, user_password: str) -> Path:
    """An encrypted PDF (English text); with an empty user password anyone may open it."""
    from reportlab.lib.pdfencrypt import StandardEncryption
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), encrypt=StandardEncryption(user_password, ownerPassword="owner-secret"))
    pdf.drawString(72, 700, "Confidential budget figures for 2024.")
    pdf.showPage()
    pdf.save()
    return path


def make_zip_bomb(path: Path, megabytes: int) -> Path:
    """A ZIP that looks like a DOCX and expands to ``megabytes`` of zeros."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", "<w:document/>")
        with archive.open("word/media/filler.bin", "w") as filler:
            block = b"\0" * (1 << 20)
            for _ in range(megabytes):
                filler.write(block)
    return path


def make_two_column_pdf(path: Path) -> Path:
    """Page 1: a running title and two filled text columns; page 2: an unruled label/value list."""
    from reportlab.pdfgen import canvas

    font = _chinese_font()
    pdf = canvas.Canvas(str(path))
    pdf.setFont(font, 10)
    pdf.drawString(72, 800, "学报 2024年第1期")
    for i in range(30):
        pdf.drawString(60, 740 - i * 14, f"左栏第{i:02d}行的正文内容，一直写到本栏的右边缘为止")
        pdf.drawString(320, 740 - i * 14, f"右栏第{i:02d}行的正文内容，一直写到本栏的右边缘为止")
    pdf.showPage()
    pdf.setFont(font, 10)
    for i in range(30):
        pdf.drawString(60, 740 - i * 14, f"项目{i:02d}")
        pdf.drawString(320, 740 - i * 14, f"负责人{i:02d}，办公地点行政楼{i}室")
    pdf.showPage()
    pdf.save()
    return path
