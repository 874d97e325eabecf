"""Question cues: the words that say what a question asks for (a date, an amount, a value, an extreme, a row).

Each cue is a regex fragment; consumers whose lists had drifted apart read a base set plus their named additions,
so every consumer keeps the set it had.
"""

from __future__ import annotations

import re

from lambdarag.text.english import ASKING_WHEN
from lambdarag.text.patterns import COMPARE_VERB, CURRENCY


def cue_pattern(*cues: str, flags: int = 0) -> re.Pattern[str]:
    """One regex matching any of ``cues`` (regex fragments), tried in the order given."""
    return re.compile("|".join(cues), flags)


MOST = ("最多", "最高", "最大", "最长", "最贵", "最快")
LEAST = ("最少", "最低", "最小", "最短", "最便宜", "最慢")
MOST_EN = (r"\b(?:highest|largest|biggest|greatest|longest|most)\b",)
LEAST_EN = (r"\b(?:lowest|smallest|shortest|cheapest|least|fewest)\b",)
# the most or the least one may do asked, a limit ("最多能贷多少钱", "What's the most I can claim?"), not the largest
# of a kind ("最小的物种多大")
_MAY = r"(?=能|可|给|报|借|贷|领|买|带|申请|休|延|允许|有|要|需|得|交|提前)"
MOST_LIMIT = (rf"(?:最多|最高|最长|至多){_MAY}", "上限", r"\bat most\b",
              r"\b(?:most|max(?:imum)?)\b(?=[^?.]*\b(?:can|could|may|will|would|allowed|able)\b)")
LEAST_LIMIT = (rf"(?:最少|最低|最短|至少){_MAY}", "下限", r"\bat least\b",
               r"\b(?:least|min(?:imum)?)\b(?=[^?.]*\b(?:can|could|may|must|need|have to|required)\b)")
# the column a price superlative reads when the question names none ("哪种证件的工本费最便宜", "the cheapest licence")
PRICE_SUPERLATIVE = ("最便宜", "最贵", r"\bcheapest\b", r"\b(?:most|least) expensive\b")
PRICE_HEADER = ("元", "价格", "收费", "费用", "金额", r"\bprices?\b", r"\bfees?\b", r"\bcosts?\b", r"\bcharges?\b",
                r"\busd\b", r"\bgbp\b", r"\beur\b", CURRENCY)
RANKED_FIRST = ("第一",)  # the table lookup reads "排名第一" as the column's maximum too

ASKS_WHAT = r"(?<![任论])何"  # 何 asks ("何时", "何处") except as "any" ("任何时候", "无论何处")
# ("哪个月" is left out: "哪个月…最多" picks a table's row by its label, which names a month, not a date)
# 几点 asks the time of day ("几点开门", "几点到几点"), not "which few points" (哪几点, 这几点要求, 几点意见)
DATE = ("什么时候", f"{ASKS_WHAT}时", "哪天", "哪一天", "哪年", "哪一年", f"{ASKS_WHAT}[年日]", "几时", "几月", "几号",
        "日期", "截止", "年份", r"(?<![哪这那前好十])几点(?![要意建注说内原变好])")
# asked the day ("最晚哪天", "几号", "what date"): a year alone ("从2015年开始") does not answer it
DAY = ("哪天", "哪一天", "几号", "几月几", f"{ASKS_WHAT}日", r"\b(?:what|which) (?:date|day)\b", r"\bby what date\b")
# asked the year itself ("哪一年", "何年", "what year"): a day of a month alone does not answer it
YEAR = ("哪年", "哪一年", f"{ASKS_WHAT}年", "年份", r"\b(?:what|which) year\b")
IN_FORCE = ("起施行", "生效")  # sentence scoring: "何时起施行" is answered by a sentence with a date
DATE_EN = (ASKING_WHEN, r"\bdeadline", r"\bdue (?:date|by)\b", r"\bwhat time\b(?! zones?\b)", r"\bby what date\b")

# 几 asks how many, except after a word that makes it "a few": 这几天, 那几天, 前几天, 好几个, 十几年
HOW_MANY = r"(?<![这那前好十])几"
AMOUNT = ("多少", f"{HOW_MANY}[个天年月次位名项]", "多久", "多长", "多大", "比例", "税率",
          r"(?:怎么|如何|怎样)(?:计算|算)")  # how a figure is computed: the rate or formula, not a procedure's steps
AMOUNT_TABLE = ("金额",)  # the table lookup's addition
# sentence scoring's additions: a limit or a deadline is answered by a sentence with an amount
AMOUNT_LIMITS = ("标准", "限额", "上限", "金额", "费用", "时限", "期限")
# asked a lead time: an amount to a question's need and its value (not to a table's column, cues.AMOUNT_TABLE)
LEAD_TIME_EN = (r"\bhow (?:far|long|many days|much time) (?:ahead|in advance|beforehand)\b",)
AMOUNT_EN = ("how (?:much|many|long|often|soon)",
             r"\b(?:fees?|costs?|prices?|charges?|cheap(?:er|est)|(?:more|most) expensive)\b",
             r"\bwhat (?:\w+ )?rates?\b",  # "what mileage rate do they reimburse", as 税率 asks
             r"\bwhat (?:proportion|percent(?:age)?|share|fraction|portion)\b",  # as 比例 asks
             # a measure asked, as 多大 / 多高 ask: "At what size…", "How big…", "What's the most memory…"
             r"\b(?:what|which) (?:size|age|height|length|width|depth|weight|diameter|temperature|speed|distance)\b",
             r"\bhow (?:big|large|old|tall|high|wide|deep|heavy|fast)\b",
             r"\bwhat(?:'s| is| are) the (?:most|least|max(?:imum)?|min(?:imum)?)\b")
# asked how long something takes or lasts: answered by a duration ("15日内", "10个工作日", "30 days"), not any amount
DURATION = ("多久", "多长时间", "多少时间", "多长期限")
DURATION_EN = (r"\bhow long (?:does|do|did|will|would|can|could|should|must|has|have|had)\b", *LEAD_TIME_EN,
               r"\bhow often\b", r"\bhow soon\b")  # a period: "every eight months"; "within one week"
# asked how often: answered by a frequency ("twice each year", "每月一次"), a period failing that
FREQUENCY = ("多久一次", "多长时间一次", "频率", "频次", r"\bhow often\b", r"\bhow frequently\b")
DURATION_FIELDS = ("时限", "期限", "时长", "周期", r"\bperiod\b", r"\bduration\b", r"\btime limit\b")  # its labels

# A question asking for a table cell rather than a row: amounts, dates and contact details.
VALUE = (
    "多少", f"{HOW_MANY}[个天年月次号位名]", "多久", "多长", "多大", "多高", "标准", "限额", "上限", "金额", "费用",
    "比例", "税率", "分数", "价格", "数量", "人数", "时长", "时间", "日期", "哪天", "哪一天", f"{ASKS_WHAT}时",
    "什么时候", "截止", "电话", "邮箱", "地址", "地点", "在哪",
)
# ... in English: how much or many, or the figure named ("What was the total number of…")
VALUE_EN = ("how (?:much|many|long)",
            r"\bwhat (?:is|was|are|were) the (?:total|number|amount|value|price|cost|rate)s?\b")
WHICH = ("哪", "谁", "什么", "排名", "which", "who", "what")  # a question choosing among rows

# Words that ask something rather than name something: they must not pull a table row or column.
QUESTION_NOISE = frozenset(
    {"多少", "是谁", "哪个", "哪些", "什么", "怎么", "如何", "请问", "是多", "谁负", "找谁", "的是"}
)

# What an answer must lead with (answer/needs.py): general words of the question's language.
MATERIALS = ("材料", "资料", "证件", "证明", "带什么", "带哪些", "准备什么", "准备哪些", "提交什么", "提交哪些",
             "提供什么", "提供哪些")
MATERIALS_EN = (r"what (?:documents|materials|papers|forms)", r"which (?:documents|forms)", r"documents? (?:are|is) "
                r"(?:needed|required)")
CONTACT = ("电话", "邮箱", "联系", "找谁", "咨询谁", "谁负责", "负责人是谁",
           "网址", r"(?:官网|网站|链接)(?:地址|是|在哪)")  # a web address is reached as a phone is
# not the asker's own ("What format should my email be in?" asks a format)
CONTACT_EN = (r"\bcontact\b", r"(?<!\bmy )(?<!\bour )\b(?:phone|e-?mail)\b",
              r"\b(?:url|web address)\b", r"\bwhat(?:'s| is) (?:the |their |its |your )?(?:official )?website\b")
# "在哪一年" asks when: 在哪 before a word of time is no place
PLACE = ("在哪(?!一?(?:年|天|日|月|个月|个时候|时|段时|届|季))", "哪里", "哪儿", "什么地方", "地点", "地址", "哪个窗口",
         f"{ASKS_WHAT}处", "哪国", "哪个国家")
PLACE_EN = (r"\bwhere\b",)
DEADLINE = ("期限", "时限", "最晚", "多久之内", "几天内", "之前完成")
STEPS = ("流程", "步骤", "程序", "手续(?!费)", "怎么办",
         r"(?:怎么|如何|怎样)(?:办理|申请|申报|报名|提交|提取|缴纳|注册|登记|预约|做|操作)")
STEPS_EN = (r"\bhow (?:do|can|should|to)\b", r"\bsteps?\b", r"\bprocedure\b", r"\bprocess\b")
COMPARE = ("区别", "不同", "差异", "相比", COMPARE_VERB, "对比", "异同", "哪个更", "变化")  # not the adverb 比较
COMPARE_EN = (r"\bdifferen", r"\bcompar", r"\bversus\b", r"\bvs\.?\s", r"\bchange[ds]?\b.*\bbetween\b")
LIST = ("哪些", "哪几", "有什么", "包括什么", "包括哪", "几种", "几类")
LIST_EN = (r"\bwhich\b", r"\bwhat are\b", r"\blist\b")
# yes/no questions; each alternative's one group is the modal the answer repeats (or negates)
# 能 and 会 inside a noun are no modal: 技能, 功能; 会员, 会议, 社会, 学会 ("会员卡可以冻结吗" asks 可以)
_CAN = r"(?<![可功才性技智本职效])能"
_WILL = r"(?<![机社协学大年开理委体])会(?![员议计场所长费谈见展考诊签])"
# 得 (děi) says "must" after an adverb or a person ("也得提前一个月打招呼吗", "我得交押金吗"), not 得到, 获得, 觉得
_MUST = r"(?<=[也还都就我你他她])得(?![到出知以了])"
# a modal asked both ways ("要不要", "能不能") or as a choice (可否, 能否): a yes or no whatever follows
ASKED_BOTH_WAYS = r"(可不可以|能不能|要不要|需不需要|是不是|有没有|会不会|行不行|可否|能否)"
YES_NO = (
    r"是否(可以|能够|能|需要|要|应当|应该|必须|允许|有|属于|会)?",
    ASKED_BOTH_WAYS,
    r"[，,]\s*(行)吗[？?]?\s*$",  # "…再接着坐，行吗？"
    rf"(可以|能够|{_CAN}|需要|要|应当|应该|必须|{_MUST}|允许|有|是|{_WILL}|算)[^，,。？?]{{0,40}}吗[？?]?\s*$",
)
# the auxiliary before the verb a …吗 question asks about: it decides over an 有 / 是 of the subject before it
# ("有欠税记录的商户可以申请吗" asks 可以, not 有)
YES_NO_AUXILIARY = (rf"(可以|能够|{_CAN}|需要|(?<![主重需只])要|应当|应该|必须|{_MUST}|允许"
                    rf"|{_WILL})[^，,。？?]{{0,40}}吗[？?]?\s*$")
# A modal asking the system to tell, show or look something up ("能告诉我…吗", "Can you tell me…") makes a request,
# not a yes/no question: what it asks for is the rest of the question (answer/needs.py). "能帮我报销吗" stays one.
REQUEST = ("告诉", "告知", "说一下", "说说", "讲一下", "讲讲", "介绍一下", "介绍下", "列出", "列一下", "查一下", "知道")
REQUEST_EN = (r"^\s*(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:tell|show|give|list|explain|describe|walk|help)"
              r"\b(?:\s+(?:me|us)\b)?(?:\s+through\b)?",)
YES_NO_EN = ("is", "are", "was", "were", "can", "could", "does", "do", "did", "has", "have", "had", "should",
             "will", "would", "may", "must", "am", "shall")
# a purpose or reason told after what an English question asks ("…its own private queue so our jobs never wait?"):
# the words asked end before it
_SUBJECT_EN = r"(?=(?:i|we|you|he|she|it|they|my|our|your|his|her|its|their|the)\b)"
# what a yes/no question's asked clause is told for, or on what occasion ("Can I park in the staff lot when I visit?")
PURPOSE_EN = (rf"\bso(?: that)?\s+{_SUBJECT_EN}", r"\bin order to\b", r"\bbecause\b",
              rf"\b(?:when|whenever|while)\s+{_SUBJECT_EN}")
OPEN_QUESTION = ("哪些", "哪个", "哪里", "哪儿", "什么", "怎么", "如何", "多少", f"{HOW_MANY}[个天年月次位名项种]",
                 "谁", f"{ASKS_WHAT}时", "还是", r"\bor\b")
# a yes/no question asking whether one pays, and a clause saying the thing is free (answer/opposites.py)
PAY_ASKED = ("收费", "交费", "缴费", "付费", "花钱", "要钱", "掏钱",
             r"(?:交(?!通)|缴|付)[\u4e00-\u9fff]{1,3}?费",  # "交工本费", "付网费"
             r"\bpay\b", r"\bpaid\b", r"\bcharged?\b", r"\bfees?\b", r"\bcosts? (?:any)?thing\b", r"\bcost money\b")
FREE_OF_CHARGE = ("免费", "不收费", "不收取费用", "免收", "无需付费", "不需付费",
                  # "无需为互联网服务付费", "免交学费", "不收取手续费"
                  r"(?:无需|无须|不需要?|不用)[^，。；]{0,8}?付费", r"免(?:交|缴)[\u4e00-\u9fff]{0,4}?费",
                  r"不(?:收取?|需要?(?:交|缴|支付))[\u4e00-\u9fff]{0,4}?费", r"(?<![-\w])free\b(?![-\w])",
                  r"\bno charge\b", r"\bwithout charge\b", r"\bat no cost\b",
                  # "at no additional charge", "with no extra fee", "without me paying extra"
                  r"\b(?:at |with )?no (?:additional|extra) (?:charge|cost|fee)s?\b", r"\bwithout (?:\w+ )?paying\b")
# open asked, closed stated, and the other way round
OPEN_ASKED = ("开放", "营业", "开门", "办公", r"\bopen\b")
CLOSED = ("闭馆", "关闭", "休息", "停止营业", "不开放", "不营业", "不办公", r"\bclosed\b")
# all of a kind asked ("Are all the rooms…", "所有课程都…吗"), some of it stated ("some…, while others…", "部分…其余…")
ALL_ASKED = (r"(?<!\bat )\ball\b(?! (?:the )?time\b)", r"\bevery\b", "所有", "全部", "一律", r"每[个一家位所间种]")
SOME_ONLY = (r"\bsome\b[^.;]*\bothers?\b", r"\bnot all\b", r"\bonly some\b", "并非所有", "并非全部", "不是所有",
             "不是全部", "并非每", r"有的[^。；]*有的", r"(?<!大)部分[^。；]*(?:其他|其余|另一部分)",
             r"(?<!大)部分[^。；，,]{0,12}?(?:不|没有|未)")  # "部分车站不发售": some do not
# two things asked different, the same stated ("Are fiscal hosting and fiscal sponsorship two different services?"
# of "These two terms mean the same thing"), and the other way round
DIFFERENT_ASKED = (r"\bdifferent\b", r"\bdiffer\b", "不同", "不一样", r"(?<!没有)区别")
SAME_STATED = (r"\b(?:the )?same (?:thing|service|meaning|as)\b", r"\bmean the same\b", r"\bare synonyms\b", "相同",
               "同一", "同义", "没有区别", "无区别")  # not 一样, which says "likewise" as often ("也一样会计费")
OPPOSITES = ((PAY_ASKED, FREE_OF_CHARGE), (OPEN_ASKED, CLOSED), (CLOSED, OPEN_ASKED), (ALL_ASKED, SOME_ONLY),
             (DIFFERENT_ASKED, SAME_STATED), (SAME_STATED, DIFFERENT_ASKED))
# asked whether one may do it again ("大四还想再申请一个…", "Can I apply again?"), a rule allowing it once only
AGAIN_ASKED = (r"再(?:次|申请|参加|报名|办理|领取|使用|买|借|来|去)", "第二次", "又一次", r"\bagain\b", r"\ba second\b",
               r"\banother time\b")
ONCE_ONLY = (r"(?:只|仅)(?:限|能|可|允许)?[\u4e00-\u9fff]{0,6}?一次", r"限[\u4e00-\u9fff]{0,4}?一次", r"\bonly once\b",
             r"\bonce only\b", r"\bone time only\b", r"\bno more than once\b")
# a supporting sentence that says "no" (answer/compose.py: the yes/no lead)
NEGATION = ("不得", "不能", "不可", "不予", "不需", "无需", "无须", "不必", "禁止", "严禁", "不允许", "不属于", "不是",
            "没有", "不会", "不能够", "不应", "不再", "不受理", "不支持", "不包括", "不接受", "不适用", "无法")
# a rule refusing a thing outright, whatever words it names it with ("严禁在外住宿" answers "想办走读…，学校允许吗")
REFUSAL = ("不得", "不能", "不可", "禁止", "严禁", "不允许", "不准", "无法", "不予", "不受理", "不支持", "不接受",
           "不适用", r"(?<!生)失效", "作废")  # "中途下车失效": what is void is no longer usable (not 生效)
# a rule binding one ("应合住一间", "须…", "must", "shall"), whose exception frees the excepted (answer/yes_no.py)
OBLIGATION = ("应", "须", "务必", r"\bmust\b", r"\bshall\b", r"\bhave to\b", r"\brequired\b")
# adverbs a question ends on that ask nothing of their own ("Can I sit a make-up exam instead?", "Is it still open?")
SENTENCE_ADVERBS_EN = frozenset({"instead", "still", "anyway", "actually", "really", "please", "already"})
REFUSAL_EN = (r"\bcannot\b", r"\bcan't\b", r"\b(?:may|must) not\b", r"\bnot (?:be )?(?:allowed|permitted)\b",
              r"\b(?:prohibited|forbidden|ineligible)\b", r"\bnot eligible\b",
              r"\bprevent(?:s|ed|ing)? (?:\w+ ){1,2}from\b")  # "…disabled, preventing users from plugging in…"
# a list's lead-in naming its items as forbidden ("违章电器包括：", "违禁物品有："): its items are refused
FORBIDDEN_KIND = ("违章", "违规", "违禁", "禁用")
NEGATION_EN = (r"\bnot?\b", r"\bnever\b", r"\bnone\b", r"\bcannot\b", r"n't\b",
               r"\b(?:prohibited|forbidden|banned|ineligible)\b")  # a rule's refusal, as 禁止 is
# a reply opening an FAQ's answer ("不需要。无论你何时入馆…", "Yes. Residents can…"): it answers the FAQ's own question
REPLY = (r"不?(?:需要|用|必|可以|能|会|是|行|允许)", "是的", "没有", "有", "无需", r"\b(?:yes|no|yep|nope)\b")
# a rule's exception, its words in the one group (answer/exceptions.py): "宠物（导盲犬除外）", "除持证车辆外"
EXCEPTION = (r"(?<![删清免解排消剔拆开废扣革破])除(?:了|去)?([^，。；,;（()）]{2,20}?)(?:以外|之外|外)",
             r"([^，。；,;（()）]{2,20})(?:均|一律)?除外")
EXCEPTION_EN = (r"\bwith the exception of\b", r"\bexcept(?:ing)?(?:\s+(?:for|when|if|where|in|on|during))?\b",
                r"\b(?:other|rather) than\b", r"\b(?:apart|aside) from\b", r"\bexcluding\b", r"\bunless\b")
# a supporting sentence that says yes only on a condition ("仅限持证车辆方可进入", "only if they display a permit")
CONDITION = ("仅限", "只限", r"只有[^。；]*才", "方可", "才能", "才可以", "才可", "须经", "经批准后", "前提是",
             "符合条件的")  # 只有 with its 才: alone it counts ("只有三个食堂")
CONDITION_EN = (r"\bonly (?:if|when|where|after|once|between|during|with|on|for)\b", r"\bprovided (?:that\b)?",
                r"\bas long as\b", r"\bon condition that\b", r"\bunless\b")
# a sentence stating a rule, what may, must or cannot be done: a yes/no is read from one before a worked example or
# a scene telling what someone did ("例如：您于…购买…", "用户A购买了…") that matches the question as well
RULE = (*NEGATION, *CONDITION, *FREE_OF_CHARGE, "可以", r"(?<![认许宁])可(?![能是见惜])", _CAN, "须", r"需(?!求)",
        "应当", "应该", "允许", "有权", "支持", "予以")
RULE_EN = (*NEGATION_EN, *CONDITION_EN,
           r"\b(?:can|may|must|shall|should|allowed|permitted|required|entitled|eligible)\b")
# a sentence's leading condition up to its comma ("If you don't spend it all, it's ok to…"): what it negates is the
# condition, not the rule the sentence states
LEADING_CONDITION_EN = r"^\s*(?:if|unless|when|whenever|once|after|before|although|though|while|in case)\b[^,;.]*,"
# a Chinese sentence opening with its condition ("如果发布的信息包含裸露…且没有不必要的暴力内容，…可能会允许发布"):
# the rule is its last clause
LEADING_CONDITION = r"^\s*(?:如果|若|假如|倘若|如若|要是)"
# a concession inside the rule ("may stay at the conference hotel even if it is not the cheapest"): its negation is
# what the rule allows despite, not a no
CONCESSION_EN = r"\beven (?:if|though|when)\b[^,;.]*"
# not "被称为什么", "成为什么": those ask for a name
REASON = (r"(?<![称译作成认视选改定名叫])为什么", "为何", "原因", "缘故", "怎么会", "由于什么")
REASON_EN = (r"\bwhy\b", r"\bwhat (?:drove|caused|led to)\b", r"\breason")
DEFINITION = (r"(?:称|译|叫)(?:为|做|作)?什么", r"(?:别名|别称|又名|原名|本名|全称|学名)(?:是|叫|为)?(?:什么|啥)",
              "是什么意思", "什么意思", "的意思", "含义", "定义", "指什么", "是指什么", "什么是", "何为", "何谓")
DEFINITION_EN = (r"\bwhat is meant by\b", r"\bdefin", r"\bwhat does .+ mean\b")

# What a sentence that meets the need carries (answer/needs.py: evidence_bonus)
REASON_MARKS = ("因为", "由于", "因而", "因此", "所以", "原因", "导致", "为了", "缘于", "得名",
                r"(?:^|[，,；;])因(?![此而素])",  # a clause opening with 因 ("，因须发早白，又号…")
                "because", "due to",
                "as a result", "driven by", "primarily", "owing to",
                r"\bnamed\b(?:\s+\w+){0,5}\s+(?:after|for)\b")  # a name's reason, as 得名 says it
DEFINITION_MARKS = ("又称", "也称", "亦称", "或称", "简称", "俗称", "又名", "亦名", "别名", "别称", "原名", "本名",
                    "全称", "学名", "又叫", "也叫", "译为", "是指", "指的是", "定义为", "意为",
                    "意思是", "意即", "称为", "是一种", "是一个", "即", "refers to", "is defined as", "means", "is a",
                    "is the")
# a sentence stating where something is or someone is from (not 学生于…): the place answer more than a place named
PLACE_STATED = ("位于", "坐落", "地处", "发源于", "出生于", "出生在", r"(?:^|[，,）)])\s*生于", "籍贯", "祖籍",
                # where one does it, named as a kind of place: "在驾驶证核发地或者违法行为发生地参加学习"
                r"在[^，,。；;\s]{0,16}地(?=或|、|和|及|参加|办理|申请|学习|考试|领取|缴纳|提交|进行)",
                r"\b(?:is |are )?located in\b", r"\bborn in\b", r"\bheadquartered in\b")
_ROAD = r"(?<![道思线电套])路"  # 道路, 思路, 线路 name no road
PLACE_MARKS = (rf"[\u4e00-\u9fff]{{1,8}}(?:省|市|县|区|州|国|岛|镇|乡|村|{_ROAD}|街|楼|室|馆|校区|大厅|窗口|号)",
               "发现于",
               *PLACE_STATED, "在[\u4e00-\u9fff]{2,8}(?:举行|召开|办理)", r"\b(?:in|at) [A-Z][a-z]+")
# asks where someone is from ("是什么地方的人", "出身于哪里", "籍贯是哪里")
ORIGIN = (rf"(?:哪里|哪儿|什么地方|{ASKS_WHAT}[地处]|哪国|哪个国家)的?人", r"(?:出身|籍贯|祖籍)")
# "江城人，…", "某朝某地人。", "某县某镇（今某区）人。"
ORIGIN_MARK = r"[\u4e00-\u9fff]{2,8}(?:[（(][^（()）]{1,12}[）)])?人(?=[，。；,;）)]|$)"
# a number a phone line is written in: with its area code, a mobile, eight digits, or a local number in two groups
# ("8801 0120", "8765-4321"; not a span of years or an amount); an e-mail address; a web address
PHONE_MARKS = (r"\d{3,4}[-－—]\d{7,8}", r"(?<!\d)1[3-9]\d{9}(?!\d)", r"\d{8}(?!\d)",
               r"(?<![\d.])(?!(?:19|20)\d\d[-－ ](?:19|20)\d\d)[2-9]\d{2,3}[ \-－]\d{4}(?![\d.%元万年月日号])",
               # a short number after a verb of dialling: an extension or an internal line ("calling 1009", "拨打 8801")
               r"(?i:\b(?:call|calling|dial|dialling|dialing|ring)\s+|拨打|致电|分机)\s*\d{3,6}(?![\d.%元万年月日号])")
EMAIL_MARKS = (r"[\w.+-]+@[\w-]+\.[\w.]+",)
WEB_MARKS = (r"(?<![A-Za-z])https?://\S|(?<![A-Za-z0-9.])www\.[\w-]+\.[a-z]",)  # also right after Chinese text
CONTACT_MARKS = (*PHONE_MARKS, *EMAIL_MARKS, *WEB_MARKS)
# the way of reaching someone a contact question names ("打哪个电话", "有邮箱吗", "官网网址"): what answers it carries
# that way; a question naming none ("怎么联系", "Who do I contact?") is answered by any
PHONE_ASKED = ("电话", "致电", "热线", "手机", r"\b(?:phone|telephone|call|hotline)\b")
EMAIL_ASKED = ("邮箱", "邮件", "电邮", r"\be-?mail\b")
WEB_ASKED = ("网址", "官网", "网站", "链接", r"\b(?:url|website|web address|link)\b")
MATERIALS_MARKS = ("材料", "证明", "复印件", "原件", "证件", "申请表", "发票", "单据", "document", "form",
                   "certificate", "copy of",
                   r"(?<![保验论认查签])证(?=[、，,；;及和与或])")  # a card listed with others: "住院证、身份证…"
STEPS_MARKS = (r"第[一二三四五六七八九十\d]+步", "首先", "然后", "之后", "最后", r"(?:^|\s)\d+[.、]", r"[（(]\d+[)）]",
               "step", "first,", "then")
# asks which body handles it or to which one turns ("找哪个部门反映", "由什么机构审批", "which office…"): answered
# by the body a sentence sends one to or makes responsible, not by any place or phone number
AUTHORITY = (r"(?:哪个|哪一个|哪家|哪级)(?:部门|单位|机构|机关|科室|组织|办公室)", r"什么(?:部门|机构|机关)",
             r"\b(?:which|what) (?:office|department|agency|authority|team|unit|body|committee|board)\b")
_BODY = r"(?:部门|机关|机构|单位|政府|中心|委员会|办公室|办公厅|法院|[处局科所站])"
AUTHORITY_MARKS = (rf"向[^，。；,;]{{2,24}}?{_BODY}\s*(?:提出|投诉|举报|申请|反映|申诉|咨询|报告|报送|备案|提交|申报)",
                   rf"由[^，。；,;]{{2,24}}?{_BODY}\s*(?:负责|受理|审核|审批|决定|办理|核发|组织)",
                   r"(?:部门|机关|机构|单位|中心|委员会|办公室|[处局科站])\s*(?:负责|受理)",  # not "他所负责的"
                   r"\b(?:contact|submit(?:ted)? (?:it |them )?to|report(?:ed)? (?:it )?to|write to|reach out to"
                   r"|handled by|reviewed by|approved by|managed by|responsible for)\b[^.;]{0,40}?"
                   r"\b(?:office|department|agency|authority|team|committee|desk|registrar|board|council)\b")
# the section headings whose sentences meet a need ("五、申报方式" holds how to apply, "四、申报时间" when)
SECTION_NEEDS = {
    "steps": ("流程", "步骤", "程序", "(?<!联系)方式", "途径", "渠道", "手续(?!费)", r"\bprocedures?\b", r"\bhow to\b"),
    "materials": ("材料", "清单", r"\bdocuments\b", r"\bmaterials\b"),
    "conditions": ("条件", "对象", "要求", "资格", "范围", r"\beligib", r"\brequirements?\b"),
    "date": ("时间", "日期", "期限", "时限", r"\bdates?\b", r"\bdeadlines?\b"),
    "amount": ("标准", "金额", "额度", "费用", "价格", "时限", "期限", "时长", r"\bamounts?\b", r"\brates?\b",
               r"\bfees?\b", r"\bcosts?\b", r"\bprices?\b", r"\bcharges?\b"),
    "contact": ("联系", "咨询", r"\bcontacts?\b"),
    "authority": ("主管部门", "受理部门", "受理机构", "负责部门", "办理机构"),
    "place": ("地点", "地址", r"\blocations?\b", r"\baddress\b"),
}
# what someone is in charge of: a directory's duties, not a list of anything
DUTIES = ("负责哪些", "负责什么", "负责的工作", "负责哪方面", "职责", "分管哪些", "分管什么", "主管哪些", "主管什么",
          "管哪些", "管什么")
DUTIES_EN = (r"\bresponsib", r"\bin charge of\b", r"\bduties\b")
PERSON = ("谁", "哪位", "何人")
# people whose age a question may state ("my niece is 17"): "my budget is 500" states no age
KIN_EN = ("son", "daughter", "child", "kid", "boy", "girl", "baby", "toddler", "teen", "teenager", "niece", "nephew",
          "brother", "sister", "cousin", "wife", "husband", "partner", "spouse", "mother", "father", "mum", "mom",
          "dad", "parent", "grandson", "granddaughter", "grandchild", "grandmother", "grandfather", "grandma",
          "grandpa", "friend", "student", "guest")
PERSON_EN = (r"\bwho\b", r"\bwhom\b")
# Where a "who" question names the role it asks to fill ("X的院长是谁" / "谁是X的开拓者" / "Who is the CEO of X"):
# the role is the question's last word before the first pattern's match, its last word after the second's, and the
# third's group; the question's other words name whose role it is (answer/roles.py: asked_role)
ROLE_BEFORE = r"(?:是|为)(?:谁|哪位|何人)\s*[？?。]?\s*$"  # not "X是谁的孩子", which asks whose
ROLE_AFTER = r"^\s*(?:谁|哪位|何人)(?:是|为)"
ROLE_EN = (r"\bwho\s+(?:is|was|are|were|has been)\s+(?:the\s+|its\s+|their\s+)?(?:current\s+|new\s+|former\s+)?"
           r"([a-z][\w&.-]*(?:\s+[a-z][\w&.-]*){0,2})\s+(?:of|at|for|in)\b",)
# "Who created / founded / published X?": the verb's stem names the role, as verb ("created by") and as agent noun
# ("Creator:", "founder")
AGENT_VERB_EN = (r"\bwho\s+(?:first\s+|originally\s+)?([a-z]{4,})ed\b",)
CONDITIONS = ("条件", "要求", "前提", "注意事项", "注意什么", "情况下", "情形",
              # who may apply: eligibility ("哪些人可以申请", "适用于哪些单位")
              r"(?:哪些|什么|何种)(?:人|人员|单位|企业|机构|对象)(?:可以|能|能够|可|有资格)", "适用于哪", "适用对象",
              "申请对象")
CONDITIONS_EN = (r"\brequirements?\b", r"\beligib", r"\bconditions?\b", r"\bqualif")
# "who" asking who may do a thing asks for the conditions, not for a name ("谁可以申请", "Who is eligible…")
ELIGIBLE_WHO = (r"谁(?:可以|能|能够|可|有资格)(?:申请|申报|报名|参加|享受|领取|办理)",
                r"(?:什么样|哪些|哪类|哪种)的?[\u4e00-\u9fff]{0,6}?才?(?:可以|能|能够|可|有资格)"
                r"(?:申请|申报|报名|参加|享受|领取|办理|购买)",  # "什么样的账号才能申请", "哪些人可以报名"
                r"\bwho\s+(?:is|are)\s+eligible\b", r"\bwho\s+qualifies\b",
                r"\bwho\s+(?:can|may|could)\s+(?:apply|claim|register|enrol|enroll|join|participate|take part)\b")
# what a sentence stating conditions or who is eligible carries
CONDITIONS_MARKS = ("条件", "要求", "前提", "情形", "对象", "适用于", "适用范围", "符合", "具备", "才可", "才能",
                    "方可", r"\brequire", r"\beligib", r"\bconditions?\b", r"\bqualif")
# one event said in other words: a question asking with one word ("卒于哪一年") is answered by a sentence saying
# another ("某年病逝于…"); each family is a pattern of the words for one event
EVENTS = (
    (r"(?<![士兵狱走仓])卒(?![业子])", "去世", "逝世", "病逝", "病故", "过世", "死于", "殁", "辞世", "离世", "身故",
     r"\bdied\b", r"\bdeath\b", r"\bpassed away\b"),
    ("出生", "生于", "诞生", "出世", "降生", r"\bborn\b", r"\bbirth\b"),
    ("成立", "创立", "创建", "建立", "创办", "始建", "组建", "设立", "创设", "建校", r"\bfounded\b",
     r"\bestablished\b", r"\bincorporated\b", r"\bformed\b"),
    ("吃", "为食", "捕食", "猎食", "觅食", "进食", "啃食", "摄食", "食性", "食物", r"\b(?:eats?|feeds? on|diet)\b"),
)
