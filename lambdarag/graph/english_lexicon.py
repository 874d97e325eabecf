"""Word lists behind the English rule entities (lambdarag.graph.english): suffixes, roles, geography, noise words.

General English and general geography only (US states and postal codes, a short list of countries):
nothing here names a particular company or document.
"""

from __future__ import annotations

from lambdarag.graph.lexicon import words

# Legal forms: they may follow a comma (Contoso, Inc.) and chain (Co., Inc.); a short name drops them.
LEGAL_FORMS = words(
    "Inc. Inc Incorporated Corporation Corp. Corp Company Co. Ltd. Ltd Limited LLC L.L.C. L.P. LP LLP plc PLC "
    "N.V. S.A. S.A.S. SE AG GmbH KGaA Pty. A/S AB ASA Oyj S.p.A. B.V."
)
# Institutional words that end a name written before them (Federal Reserve Bank, Financial Accounting Standards
# Board); never after a comma.
INSTITUTIONS = words(
    "Holdings Group Bank Bancorp Trust Partners University College Institute Association Commission Agency "
    "Department Board Authority Fund Foundation Exchange Council Ministry Laboratories Industries Enterprises"
)
# Institutions also written before "of" and the rest of their name (Department of Labor, Bank of Commerce).
HEADS = frozenset(words("Bank University College Institute Department Commission Ministry Agency Authority"))
# Capitalised words that make no name on their own in front of a suffix (the Controlled Group, Total Company).
GENERIC = frozenset(words(
    "Public Private Outstanding Controlled Obligor Parent Operating Holding Acquired Acquiring Acquiror Combined "
    "Merged Surviving Successor Predecessor Issuing Lending Guarantor Borrower Subsidiary Subsidiaries Affiliated "
    "Affiliate Registrant Reporting Investment Investing Member Participating Sponsoring Employing Commercial "
    "Savings Audit Compensation Nominating Governance Finance Management Advisory Pension Retirement Benefit "
    "Benefits Plan Master Total Consolidated Foreign Stock Rating Taxing Limited General Business Segment Peer "
    "Industry Product Products Customer Working Joint Venture Target Company Corporation Group Holdings Trust "
    "Fund Bank Partners Agency Board Exchange Authority Department Other Each Such Any Certain Former Global "
    "Domestic International Regional Local National Central Capital Money Market Mutual Index Retail Service "
    "Services Insurance Health Care Medical Life Financial Operations Technology Development Research Marketing "
    "Sales Legal Tax Accounting Human Resources Our Your Their New Old Large Small Major Annual Quarterly Fiscal"
))
# Words that start a capitalised run but belong to the sentence, not the name (Indicate, Exhibit, Note 12).
NOISE = frozenset(words(
    "Note Notes Item Items Part Table Tables Form Section Sections Exhibit Exhibits Schedule Schedules Annex Appendix "
    "Article Chapter Page Pages See Refer Indicate Including Includes Include Except Excluding Per Dear Yes No Yes/No "
    "Total Subtotal Unaudited Audited Restated Adjusted Reported Net Gross Less Plus Contents Certification Rule "
    "Regulation Act Statement Statements Report Reports Filing Filings Agreement Amendment Plan Consolidated Combined "
    "Condensed Selected Summary Overview Background Introduction Results Discussion Analysis Risk Factors Name Title "
    "Signature Signatures Date Dated By Mr Ms Mrs Dr Prof Also Additionally Moreover Furthermore However Therefore "
    "Accordingly Consequently Meanwhile Finally Similarly Overall Currently Previously Today Instead Otherwise "
    "Generally Specifically Notably Thereafter Thereby Herein Hereby Whereas Among Following Pursuant Under Effective "
    "Beginning Ending Ended Starting Upon Prior After Before Since During Within Without Through Throughout"
))
MONTHS = words("January February March April May June July August September October November December")
MONTH_ABBREVIATIONS = words("Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec")
WEEKDAYS = words("Monday Tuesday Wednesday Thursday Friday Saturday Sunday")
# Words of a role phrase or a heading, never of a person's name.
ROLE_WORDS = words(
    "Chief Executive Officer Officers President Vice Senior Chairman Chairwoman Chair Chairperson Director Directors "
    "Secretary Treasurer General Counsel Controller Group Corporate Deputy Assistant Associate Independent Lead "
    "Board Financial Operating Accounting Principal Officer Member Members Executive Executives Management Team"
)
GEOGRAPHIC = words(
    "North South East West Northern Southern Eastern Western Central America Americas American Europe European "
    "Asia Asian Pacific Latin Africa African Middle International Global Worldwide United States Kingdom Greater"
)
NOT_NAME_WORDS = frozenset(
    [*ROLE_WORDS, *GEOGRAPHIC, *MONTHS, *WEEKDAYS, *LEGAL_FORMS, *INSTITUTIONS, *NOISE, *GENERIC]
)

US_STATES = (*words(
    "Alabama Alaska Arizona Arkansas California Colorado Connecticut Delaware Florida Georgia Hawaii Idaho Illinois "
    "Indiana Iowa Kansas Kentucky Louisiana Maine Maryland Massachusetts Michigan Minnesota Mississippi Missouri "
    "Montana Nebraska Nevada Ohio Oklahoma Oregon Pennsylvania Tennessee Texas Utah Vermont Virginia Washington "
    "Wisconsin Wyoming"
), "New Hampshire", "New Jersey", "New Mexico", "New York", "North Carolina", "North Dakota", "Rhode Island",
    "South Carolina", "South Dakota", "West Virginia", "District of Columbia", "Puerto Rico", "D.C.")
POSTAL_CODES = frozenset(words(
    "AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR "
    "PA RI SC SD TN TX UT VT VA WA WV WI WY DC PR"
))
# Codes that are also English words or common abbreviations: a place only with a ZIP code after them.
AMBIGUOUS_CODES = frozenset(words("IN OR ME OK HI ID DE CO LA OH AL PA MA MD MS MT NE SC"))
COUNTRIES = (*words(
    "Canada Mexico Brazil Argentina Chile Colombia Peru Ireland France Germany Switzerland Netherlands Belgium "
    "Luxembourg Austria Italy Spain Portugal Sweden Norway Denmark Finland Poland Russia Turkey Israel Egypt China "
    "Japan Korea India Singapore Australia Indonesia Malaysia Thailand Vietnam Philippines Taiwan"
), "United States", "United Kingdom", "Hong Kong", "New Zealand", "South Africa", "South Korea",
    "Saudi Arabia", "United Arab Emirates")
REGIONS = ("Europe", "Asia", "Africa", "North America", "South America", "Latin America", "Central America",
           "Asia Pacific", "Middle East", "European Union", "Caribbean", "Eastern Europe", "Western Europe")
PLACE_NAMES = frozenset([*US_STATES, *COUNTRIES])
# Words that are a place only with a name (State of Ohio, New York): alone they are a cut-off line or a heading.
NOT_ALONE = frozenset(words(
    "State States Commonwealth Republic City County Town Village Province Territory District Country Nation North "
    "South East West Northern Southern Eastern Western Central Greater New Old United Middle Latin Upper Lower"
))
# Words that are no part of a place name (geography and "New" are: New Brighton, North Bay).
NOT_PLACE_WORDS = NOT_NAME_WORDS - frozenset([*GEOGRAPHIC, "New", "Old", "Central", "National", "Capital"])
